#include "tts/train/training_run.h"

#include <stdexcept>
#include <system_error>

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

namespace {

// Where `recorded` and `asked` differ: the fields of an object that differ ("hop_length 256, this
// run's 200"), or the two values whole.
std::string difference(const nlohmann::json& recorded, const nlohmann::json& asked) {
  if (!recorded.is_object() || !asked.is_object())
    return recorded.dump() + ", this run's " + asked.dump();
  std::string text;
  auto add = [&](const std::string& key) {
    const nlohmann::json none;
    const nlohmann::json& was = recorded.contains(key) ? recorded.at(key) : none;
    const nlohmann::json& is = asked.contains(key) ? asked.at(key) : none;
    if (was == is) return;
    text += (text.empty() ? "" : ", ") + key + " " + was.dump() + ", this run's " + is.dump();
  };
  for (const auto& item : recorded.items()) add(item.key());
  for (const auto& item : asked.items())
    if (!recorded.contains(item.key())) add(item.key());
  return text;
}

}  // namespace

std::string recorded_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path name = std::filesystem::weakly_canonical(dir, ec);
  if (ec) name = std::filesystem::absolute(dir, ec).lexically_normal();
  if (!name.has_filename() && name.has_parent_path()) name = name.parent_path();
  return name.string();
}

void check_run_inputs(const std::filesystem::path& out_dir, const nlohmann::json& header,
                      const nlohmann::json& inputs, std::vector<std::string>& warnings) {
  const std::string json = (out_dir / "checkpoint.json").string();
  for (const auto& item : inputs.items()) {
    if (!header.contains(item.key())) {
      warnings.push_back(json + " records no \"" + item.key() +
                         "\": the run resumes without checking that they are this run's");
      continue;
    }
    if (header.at(item.key()) != item.value())
      throw std::runtime_error(json + ": cannot resume: the checkpoint's " + item.key() +
                               " differ from this run's (" +
                               difference(header.at(item.key()), item.value()) +
                               "); resume with the ones it was trained on, or start a new run "
                               "in another --out");
  }
}

std::optional<ResumePoint> check_run_resume(const TrainingRun& run, const RunStart& start,
                                            const CheckpointHeaderReader& read_header,
                                            const RecordedSeed& recorded_seed) {
  if (!start.resume) return std::nullopt;
  std::vector<std::string> warnings;
  const nlohmann::json header = read_header(start.out_dir, &warnings);
  check_run_inputs(start.out_dir, header, start.inputs, warnings);
  run.warn(warnings);
  return check_resume(start.out_dir, header, recorded_seed(header), start.seed, start.steps,
                      run.layout(), run.ranks(), run.log());
}

}  // namespace tts::train
