// The update every trainer makes after its backward pass: global-norm gradient clipping, one Adam
// step and the EMA of the weights that synthesis uses. One implementation, so that the vocoder and
// the acoustic model train (and resume) by exactly the same rules.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include "tts/kernels/optimizer.h"
#include "tts/kernels/parameter_set.h"
#include "tts/train/loss_scaler.h"

namespace tts::train {

// What a trainer keeps between steps (and saves in its checkpoints).
struct OptimizerTensors {
  kernels::ParameterSet& weights;
  kernels::ParameterSet& ema;
  kernels::ParameterSet& first_moment;
  kernels::ParameterSet& second_moment;
  int64_t& step;  // steps taken so far; incremented by a successful update
};

struct OptimizerStepSettings {
  kernels::AdamSettings adam;  // learning_rate: the rate for this step (warm-up/decay applied)
  float clip_norm = 1.0f;      // the gradient's global L2 norm is scaled down to at most this
  float ema_decay = 0.999f;
};

// Clips `gradients` (in place), then steps Adam and the EMA. Returns the norm before clipping.
// A non-finite gradient throws std::runtime_error naming the step, before anything changes.
double apply_optimizer_step(const OptimizerTensors& tensors, kernels::ParameterSet& gradients,
                            const OptimizerStepSettings& settings);

// A training step's update with the run's loss scaling, if it has any (`loss_scale` set): the
// gradients are unscaled before clipping, and when they overflowed the update is skipped
// (finish_scaled_step logs it). A skipped step still counts, because its batch was drawn and the
// schedule moves on: only the weights, Adam's moments and the EMA stay as they were.
void take_optimizer_step(const OptimizerTensors& tensors, kernels::ParameterSet& gradients,
                         const OptimizerStepSettings& settings,
                         const LossScalingOptions& loss_scaling,
                         std::optional<LossScaleState>& loss_scale, std::ostream& log);

}  // namespace tts::train
