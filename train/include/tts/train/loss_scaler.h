// Dynamic loss scaling, for training with fp16 GEMMs (--precision fp16, docs/training.md): the
// backward pass starts from the loss's gradient times a scale, so that gradients too small for
// fp16's range survive its rounding; the trainer divides the summed gradients by the scale before
// clipping. A step whose gradients overflowed (inf or nan) is skipped and the scale halved; after a
// run of good steps it doubles. Device-independent: it sees only the summed host gradients.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "tts/kernels/device.h"
#include "tts/kernels/parameter_set.h"

namespace tts::train {

enum class LossScaling {
  kAuto,     // dynamic with --precision fp16, off otherwise
  kDynamic,  // on with any precision (fp32 too: the CPU tests it so)
  kOff,
};

// `--loss-scaling`, `--loss-scale-init`, `--loss-scale-growth-steps`.
struct LossScalingOptions {
  LossScaling mode = LossScaling::kAuto;
  float initial_scale = 65536.0f;  // 2^16
  int64_t growth_steps = 2000;     // good steps in a row after which the scale doubles
};

// Whether a run of `precision` scales its loss (kAuto resolved).
bool loss_scaling_enabled(const LossScalingOptions& options, kernels::GemmPrecision precision);

// "dynamic", "off"; "auto" for kAuto. Parsing throws std::invalid_argument naming the text.
const char* to_string(LossScaling mode);
LossScaling parse_loss_scaling(const std::string& name);

// What a checkpoint keeps of the scaler, so that --resume continues it.
struct LossScaleState {
  float scale = 65536.0f;
  int64_t good_steps = 0;  // finite steps since the last change of the scale
};

// {"scale": …, "good_steps": …} in checkpoint.json; reading checks the values as restore() does
// (std::invalid_argument naming them) and throws nlohmann's errors for a missing field.
nlohmann::json loss_scale_json(const LossScaleState& state);
LossScaleState read_loss_scale(const nlohmann::json& j);

class LossScaler {
 public:
  static constexpr float kMinScale = 1.0f;
  static constexpr float kMaxScale = 16777216.0f;  // 2^24

  // Throws std::invalid_argument unless the initial scale is a power of two in [1, 2^24] (a power
  // of two scales and unscales fp32 exactly) and growth_steps ≥ 1.
  explicit LossScaler(const LossScalingOptions& options);

  float scale() const { return state_.scale; }
  const LossScaleState& state() const { return state_; }
  // A checkpoint's state; throws std::invalid_argument, naming the value, when it is out of range.
  void restore(const LossScaleState& state);

  // Divides `gradients` (summed over micro-batches and ranks) by the scale and returns true; when
  // any of them is inf or nan returns false and leaves them as they are. After an all-reduce every
  // rank holds the same sums, and a non-finite term makes its sum non-finite, so every rank agrees.
  bool unscale(kernels::ParameterSet& gradients) const;

  enum class Change { kNone, kBackedOff, kGrew };
  // Records a step's outcome: a non-finite one halves the scale (not below 1) and restarts the
  // count; the growth_steps-th finite one in a row doubles it (not above 2^24).
  Change update(bool finite);

 private:
  int64_t growth_steps_;
  LossScaleState state_;
};

// A trainer's loss scaling, with the scaler's state kept in the trainer's state
// (VocoderTrainingState, AcousticTrainingState), so that checkpoints, resumes and the acoustic
// trainer's alignment restarts carry it like the weights.
// start(): the state a run begins with: nullopt when it does not scale; otherwise `resumed` (the
// checkpoint's) where there is one, else the initial scale. Logs which.
std::optional<LossScaleState> start_loss_scaling(const LossScalingOptions& options,
                                                 kernels::GemmPrecision precision,
                                                 const std::optional<LossScaleState>& resumed,
                                                 std::ostream& log);

// After the step's gradients are summed over micro-batches and ranks: unscales them and updates
// `state` (LossScaler::unscale, update). Returns whether the optimiser steps: false when they
// overflowed, after logging "step STEP: gradients not finite at loss scale S: step skipped, …".
// Logs a growth of the scale too.
bool finish_scaled_step(const LossScalingOptions& options, LossScaleState& state,
                        kernels::ParameterSet& gradients, int64_t step, std::ostream& log);

}  // namespace tts::train
