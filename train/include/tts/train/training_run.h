// What both trainers do before their first step, written once: the rank's place in the run (its
// ranks, whether it writes, its log, the checked batch layout), the check a resume makes before any
// other work, the start of the training state (read back from the checkpoint, or a fresh start that
// must not overwrite one) with its loss scaling, and the log lines every run writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tts/kernels/device.h"
#include "tts/kernels/parameter_set.h"
#include "tts/train/batch_layout.h"
#include "tts/train/communicator.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/training_loop.h"

namespace tts::train {

// This process's part in a run. Rank 0 alone writes files and the log: the other ranks' log
// discards what it is given.
class TrainingRun {
 public:
  // `communicator` is the run's (this process alone when null); the batch layout of `micro_batch`
  // items per micro-batch and `accumulate` micro-batches per step is checked (check_batch_layout).
  TrainingRun(Communicator* communicator, std::ostream& rank_log, int micro_batch, int accumulate);
  TrainingRun(const TrainingRun&) = delete;
  TrainingRun& operator=(const TrainingRun&) = delete;

  Communicator& ranks() const { return ranks_; }
  bool writer() const { return writer_; }
  std::ostream& log() const { return log_; }
  const BatchLayout& layout() const { return layout_; }

  // A "warning: …" line for each of `warnings`.
  void warn(const std::vector<std::string>& warnings) const;
  // "training pass: PASS" and, when a step has several micro-batches, "batch: LAYOUT UNIT per
  // step, RANKS".
  void log_training_pass(const std::string& pass, const std::string& unit) const;

 private:
  Communicator& ranks_;
  bool writer_;
  std::ostream discard_;
  std::ostream& log_;
  BatchLayout layout_;
};

// Where a run starts from: OUT, whether it resumes there, its --seed and --steps, and how it
// scales its loss.
struct RunStart {
  std::filesystem::path out_dir;
  bool resume = false;
  uint64_t seed = 0;
  int64_t steps = 0;
  LossScalingOptions loss_scaling;
  kernels::GemmPrecision precision = kernels::GemmPrecision::kFp32;
  // What the run trains on, by the name its checkpoint.json records it under ("features", "data"):
  // a resume compares each with the checkpoint's and refuses one that changed (check_run_inputs).
  nlohmann::json inputs = nlohmann::json::object();
};

// The name a run's --data folder is recorded under: absolute, with its links resolved, so that the
// same folder reached from another directory or through a link compares equal.
std::string recorded_folder(const std::filesystem::path& dir);

// Throws std::runtime_error "OUT/checkpoint.json: cannot resume: …" naming each of `inputs` whose
// value differs from the one `header` records, with both values: weights trained on other features
// or recordings would be exported with this run's, which they do not fit. A checkpoint that does
// not record one of them (written before it was recorded) passes with a warning in `warnings`.
void check_run_inputs(const std::filesystem::path& out_dir, const nlohmann::json& header,
                      const nlohmann::json& inputs, std::vector<std::string>& warnings);

// The model's reader of OUT/checkpoint.json for a resume (read_checkpoint_header), and where in
// that header the seed of the run it continues is recorded.
using CheckpointHeaderReader =
    std::function<nlohmann::json(const std::filesystem::path&, std::vector<std::string>*)>;
using RecordedSeed = std::function<uint64_t(const nlohmann::json& header)>;

// A resume, before any other work: reads the header, logs its warnings and checks it
// (check_run_inputs: what the run trains on; check_resume: the seed, the step on every rank, the
// global batch). Nothing (nullopt) for a
// run that does not resume.
std::optional<ResumePoint> check_run_resume(const TrainingRun& run, const RunStart& start,
                                            const CheckpointHeaderReader& read_header,
                                            const RecordedSeed& recorded_seed);

// Starts a trainer's state (its weights, averaged weights and Adam moments laid out as `layout`):
// on a resume, `read_checkpoint` reads it back (checked by check_run_resume already) and the log
// says from where and at which step; on a fresh start, which must not overwrite a checkpoint
// (check_fresh_start), `fresh_weights` sets the weights and their average. Then the loss scaling
// starts (start_loss_scaling), a resume continuing the checkpoint's scale.
template <typename State>
void start_training_state(State& state, const kernels::ParameterSet& layout, const TrainingRun& run,
                          const RunStart& start, const std::function<void(State&)>& read_checkpoint,
                          const std::function<void(State&)>& fresh_weights) {
  state.weights = state.ema = layout;
  state.first_moment = state.second_moment = layout.zeros_like();
  if (start.resume) {
    read_checkpoint(state);
    run.log() << "resumed from " << (start.out_dir / "checkpoint.json").string() << " at step "
              << state.step << "\n";
  } else {
    check_fresh_start(start.out_dir);
    fresh_weights(state);
  }
  state.loss_scale = start_loss_scaling(start.loss_scaling, start.precision,
                                        start.resume ? state.loss_scale : std::nullopt, run.log());
}

}  // namespace tts::train
