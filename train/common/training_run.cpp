#include "tts/train/training_run.h"

namespace tts::train {

TrainingRun::TrainingRun(Communicator* communicator, std::ostream& rank_log, int micro_batch,
                         int accumulate)
    : ranks_(communicator ? *communicator : this_process_alone()),
      writer_(ranks_.rank() == 0),
      discard_(nullptr),
      log_(writer_ ? rank_log : discard_),
      layout_{micro_batch, accumulate, ranks_.size(), ranks_.rank()} {
  check_batch_layout(layout_);
}

void TrainingRun::warn(const std::vector<std::string>& warnings) const {
  for (const auto& w : warnings) log_ << "warning: " << w << "\n";
}

void TrainingRun::log_training_pass(const std::string& pass, const std::string& unit) const {
  log_ << "training pass: " << pass << "\n";
  if (layout_.micro_batches() > 1)
    log_ << "batch: " << layout_.describe() << " " << unit << " per step, " << ranks_.describe()
         << "\n";
}

std::optional<ResumePoint> check_run_resume(const TrainingRun& run, const RunStart& start,
                                            const CheckpointHeaderReader& read_header,
                                            const RecordedSeed& recorded_seed) {
  if (!start.resume) return std::nullopt;
  std::vector<std::string> warnings;
  const nlohmann::json header = read_header(start.out_dir, &warnings);
  run.warn(warnings);
  return check_resume(start.out_dir, header, recorded_seed(header), start.seed, start.steps,
                      run.layout(), run.ranks(), run.log());
}

}  // namespace tts::train
