// The training loop every trainer runs. A model supplies what is its own (TrainingTask: its
// batches, forward and backward passes, learning-rate schedule, validation, checkpoint and
// export); the loop owns what is the same for all of them: each step's accumulation over
// micro-batches, the reduction across ranks, the finite check, the loss-scaled optimiser update,
// and the log, validation and checkpoint schedule. The checks a run makes before it starts
// (resume or fresh start) are here too. A feature of training as such is written here, once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tts/kernels/parameter_set.h"
#include "tts/train/batch_layout.h"
#include "tts/train/communicator.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/optimizer_step.h"

namespace tts::train {

// This rank's share of one optimiser step.
struct StepLosses {
  // The step's losses, summed over the ranks by the loop (then divided by the task's
  // reduction_divisor); values[0] is the total, which must be finite.
  std::vector<double> values;
  double work = 0.0;  // what the whole step trained, in the task's work_unit (samples, frames)
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;

  // The forward and backward passes of this rank's micro-batches of batch number `step` (the
  // steps taken so far), with `weights`: each adds its gradient times `loss_scale` into
  // `gradients`, which are zero on entry.
  virtual StepLosses accumulate(const kernels::ParameterSet& weights, int64_t step,
                                kernels::ParameterSet& gradients, float loss_scale) = 0;
  // What the ranks' summed gradients and losses are divided by (reduce_gradients): 1 when each
  // micro-batch's loss is already its share of the whole batch's mean.
  virtual double reduction_divisor() const { return 1.0; }
  // The learning rate of step number `step` (counted from 1).
  virtual float learning_rate(int64_t step) const = 0;
  // Around the update: with the step's reduced gradients before it, with the updated tensors
  // after it (a model that trains only some tensors keeps the others as they were).
  virtual void before_update(kernels::ParameterSet& /*gradients*/) {}
  virtual void after_update(const OptimizerTensors& /*tensors*/) {}

  // Rank 0 only, on the validation schedule: the held-out loss of the averaged weights `ema` after
  // `step` steps (and whatever else the model writes then, such as audio).
  virtual double validate(const kernels::ParameterSet& ema, int64_t step) = 0;
  // Rank 0 only, on the checkpoint schedule: the checkpoint of the run and the exported model.
  virtual void save() = 0;

  // The log line's parts: the losses after "loss ", a validation result, the unit of `work`.
  virtual std::string describe_losses(const std::vector<double>& values) const = 0;
  virtual std::string describe_validation(double value) const = 0;
  virtual std::string work_unit() const = 0;
  // Seconds the device has computed since the last call; negative where unknown (the CPU).
  virtual double device_busy_seconds() { return -1.0; }
};

// What a caller watching a run is told after every step (rank 0): for a progress display.
struct TrainingProgress {
  int64_t step = 0, steps = 0;       // the step just taken, of the run's total
  double loss = 0.0;                 // its total loss
  std::optional<double> validation;  // set on the steps that validated
  double seconds_per_step = 0.0;     // mean over the steps this call has taken
};
using ProgressCallback = std::function<void(const TrainingProgress&)>;

struct TrainingSchedule {
  int64_t steps = 0;  // the run ends after this many steps in all
  int64_t log_every = 10, validate_every = 0, checkpoint_every = 0;
  bool has_validation_files = false;
  OptimizerStepSettings optimizer;  // its learning rate is replaced by the task's for each step
  LossScalingOptions loss_scaling;
  ProgressCallback progress;  // called after each step when set (rank 0)
};

// What the loop advances: the optimiser's tensors (and step count) and the loss scaler's state.
struct TrainingTensors {
  OptimizerTensors optimizer;
  std::optional<LossScaleState>& loss_scale;
};

// The schedule of a run whose options name its steps, intervals, optimiser and loss scaling the
// way both trainers' options do.
template <typename Options>
TrainingSchedule schedule_of(const Options& o, bool has_validation_files) {
  TrainingSchedule schedule;
  schedule.steps = o.steps;
  schedule.log_every = o.log_every;
  schedule.validate_every = o.validate_every;
  schedule.checkpoint_every = o.checkpoint_every;
  schedule.has_validation_files = has_validation_files;
  schedule.optimizer = {o.adam, o.clip_norm, o.ema_decay};
  schedule.loss_scaling = o.loss_scaling;
  schedule.progress = o.progress;
  return schedule;
}

// The tensors of a trainer's checkpointed state (both trainers' states name them alike).
template <typename State>
TrainingTensors tensors_of(State& state) {
  return {{state.weights, state.ema, state.first_moment, state.second_moment, state.step},
          state.loss_scale};
}

struct LoopSummary {
  int64_t first_step = 0, last_step = 0;  // steps run by the loop: (first_step, last_step]
  std::vector<double> last_losses;
  std::optional<double> last_validation;
  double work_per_second = 0.0;
};

// One optimiser step: accumulate this rank's micro-batches, reduce across the ranks, check the
// total loss is finite (throwing std::runtime_error naming the step otherwise, before anything
// changes), update with the run's loss scaling. `gradients` is the scratch buffer of the
// model's layout. Returns the reduced losses.
StepLosses take_training_step(TrainingTask& task, const TrainingTensors& tensors,
                              kernels::ParameterSet& gradients, Communicator& ranks,
                              const TrainingSchedule& schedule, std::ostream& log);

// Steps until schedule.steps, with a log line every log_every steps, validation every
// validate_every (rank 0, when there are validation files) and a checkpoint every
// checkpoint_every (rank 0); the last step does all three. `log` is rank 0's (other ranks pass a
// stream that discards).
LoopSummary run_training_loop(TrainingTask& task, const TrainingTensors& tensors,
                              Communicator& ranks, const TrainingSchedule& schedule,
                              std::ostream& log);

// Where a resumed run stands, from its checkpoint's header (read by the model's own reader):
// the seed it records must be `asked_seed`; every rank must see the same step; a run with steps
// left must keep the checkpoint's global batch. When the step already reaches `steps`, says so in
// `log` and returns already_trained.
struct ResumePoint {
  int64_t step = 0;
  bool already_trained = false;
};
ResumePoint check_resume(const std::filesystem::path& out_dir, const nlohmann::json& header,
                         uint64_t recorded_seed, uint64_t asked_seed, int64_t steps,
                         const BatchLayout& layout, Communicator& ranks, std::ostream& log);

// A fresh start must not overwrite a run: throws when OUT already holds a checkpoint.
void check_fresh_start(const std::filesystem::path& out_dir);

// "12m05s", "3h07m": the time left in a log line.
std::string format_duration(double seconds);

}  // namespace tts::train
