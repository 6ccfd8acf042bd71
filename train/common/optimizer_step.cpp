#include "tts/train/optimizer_step.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tts::train {

double apply_optimizer_step(const OptimizerTensors& t, kernels::ParameterSet& gradients,
                            const OptimizerStepSettings& s) {
  const double norm = kernels::l2_norm(gradients.data(), gradients.size());
  if (!std::isfinite(norm))
    throw std::runtime_error("gradient is not finite at step " + std::to_string(t.step + 1) +
                             "; stopping with the last checkpoint left intact");
  if (norm > s.clip_norm)
    kernels::scale(gradients.data(), gradients.size(), static_cast<float>(s.clip_norm / norm));
  ++t.step;
  kernels::adam_step(t.weights.data(), gradients.data(), t.first_moment.data(),
                     t.second_moment.data(), t.weights.size(), t.step, s.adam);
  kernels::ema_update(t.ema.data(), t.weights.data(), t.ema.size(), s.ema_decay);
  return norm;
}

void take_optimizer_step(const OptimizerTensors& t, kernels::ParameterSet& gradients,
                         const OptimizerStepSettings& s, const LossScalingOptions& loss_scaling,
                         std::optional<LossScaleState>& loss_scale, std::ostream& log) {
  if (!loss_scale || finish_scaled_step(loss_scaling, *loss_scale, gradients, t.step + 1, log))
    apply_optimizer_step(t, gradients, s);
  else
    ++t.step;
}

}  // namespace tts::train
