#include "tts/train/training_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "tts/train/checkpoint_files.h"
#include "tts/train/fault_injection.h"
#include "tts/train/gradient_reduction.h"

namespace tts::train {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::string format_duration(double seconds) {
  const long s = std::lround(seconds);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  return text;
}

StepLosses take_training_step(TrainingTask& task, const TrainingTensors& tensors,
                              kernels::ParameterSet& gradients, Communicator& ranks,
                              const TrainingSchedule& schedule, std::ostream& log) {
  const int64_t step = tensors.optimizer.step + 1;  // the number of the step being taken
  inject_rank_failure(ranks.rank(), step);
  gradients.set_zero();
  const float loss_scale = tensors.loss_scale ? tensors.loss_scale->scale : 1.0f;
  StepLosses losses =
      task.accumulate(tensors.optimizer.weights, tensors.optimizer.step, gradients, loss_scale);
  inject_gradient_overflow(ranks.rank(), step, gradients);
  reduce_gradients(ranks, gradients, losses.values.data(), losses.values.size(),
                   task.reduction_divisor());
  task.before_update(gradients);
  if (!std::isfinite(losses.values.at(0)))
    throw std::runtime_error("loss is not finite (" + std::to_string(losses.values[0]) +
                             ") at step " + std::to_string(step) +
                             "; stopping with the last checkpoint left intact");
  OptimizerStepSettings settings = schedule.optimizer;
  settings.adam.learning_rate = task.learning_rate(step);
  take_optimizer_step(tensors.optimizer, gradients, settings, schedule.loss_scaling,
                      tensors.loss_scale, log);
  task.after_update(tensors.optimizer);
  return losses;
}

LoopSummary run_training_loop(TrainingTask& task, const TrainingTensors& tensors,
                              Communicator& ranks, const TrainingSchedule& schedule,
                              std::ostream& log) {
  const bool writer = ranks.rank() == 0;
  const int64_t& step = tensors.optimizer.step;
  kernels::ParameterSet gradients = tensors.optimizer.weights.zeros_like();
  LoopSummary summary;
  summary.first_step = summary.last_step = step;
  const auto started = Clock::now();
  double work = 0.0;
  // The device's idle fraction since the last log line (on a GPU): what the host's work between
  // and inside the passes (batches, optimiser, copies) kept it waiting.
  task.device_busy_seconds();
  auto last_log = Clock::now();
  while (step < schedule.steps) {
    const StepLosses losses = take_training_step(task, tensors, gradients, ranks, schedule, log);
    work += losses.work;
    summary.last_losses = losses.values;
    summary.last_step = step;
    const double elapsed = seconds_since(started);
    summary.work_per_second = work / std::max(elapsed, 1e-9);

    const bool last = step == schedule.steps;
    const bool validate = writer && schedule.has_validation_files && schedule.validate_every > 0 &&
                          (step % schedule.validate_every == 0 || last);
    if (validate) summary.last_validation = task.validate(tensors.optimizer.ema, step);
    if (step % schedule.log_every == 0 || last || validate) {
      const double per_step = elapsed / static_cast<double>(summary.last_step - summary.first_step);
      std::ostringstream line;
      line << "step " << step << "/" << schedule.steps << "  loss "
           << task.describe_losses(losses.values);
      if (validate) line << "  " << task.describe_validation(*summary.last_validation);
      line.setf(std::ios::fixed);
      line.precision(0);
      line << "  " << summary.work_per_second << " " << task.work_unit() << "/s  ETA "
           << format_duration(per_step * static_cast<double>(schedule.steps - step));
      const double busy = task.device_busy_seconds();
      const double interval = seconds_since(last_log);
      last_log = Clock::now();
      if (busy >= 0.0 && interval > 0.0)
        line << "  device idle " << std::max(0.0, 100.0 * (1.0 - busy / interval)) << "%";
      log << line.str() << std::endl;
    }
    if (writer && (step % schedule.checkpoint_every == 0 || last)) task.save();
    if (writer && schedule.progress) {
      TrainingProgress progress;
      progress.step = step;
      progress.steps = schedule.steps;
      progress.loss = losses.values.at(0);
      if (validate) progress.validation = summary.last_validation;
      // Validation and checkpoints included: what a step costs the caller's clock.
      progress.seconds_per_step =
          seconds_since(started) / static_cast<double>(step - summary.first_step);
      schedule.progress(progress);
    }
  }
  return summary;
}

ResumePoint check_resume(const std::filesystem::path& out_dir, const nlohmann::json& header,
                         uint64_t recorded_seed, uint64_t asked_seed, int64_t steps,
                         const BatchLayout& layout, Communicator& ranks, std::ostream& log) {
  check_resume_seed(out_dir, recorded_seed, asked_seed);
  ResumePoint point;
  point.step = header.at("step").get<int64_t>();
  check_same_on_every_rank(ranks, "the checkpoint's step", std::to_string(point.step));
  if (point.step >= steps) {
    log << already_trained_message(out_dir, point.step, steps) << "\n";
    point.already_trained = true;
    return point;
  }
  // Only a run with steps left draws batches, so only it must keep the global batch.
  check_resume_batch(out_dir, header, layout);
  return point;
}

void check_fresh_start(const std::filesystem::path& out_dir) {
  if (has_checkpoint(out_dir))
    throw std::runtime_error(out_dir.string() +
                             " already holds a checkpoint: pass --resume or choose a new --out");
}

}  // namespace tts::train
