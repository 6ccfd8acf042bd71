#include "tts/kernels/optimizer.h"

#include <cmath>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

namespace {
using FlatMap = Eigen::Map<Eigen::ArrayXf>;
using ConstFlatMap = Eigen::Map<const Eigen::ArrayXf>;
Eigen::Index size(std::size_t n) { return static_cast<Eigen::Index>(n); }
}  // namespace

void adam_step(float* params, const float* grads, float* first_moment, float* second_moment,
               std::size_t n, long step, const AdamSettings& s) {
  FlatMap p(params, size(n)), m(first_moment, size(n)), v(second_moment, size(n));
  ConstFlatMap g(grads, size(n));
  m = s.beta1 * m + (1.0f - s.beta1) * g;
  v = s.beta2 * v + (1.0f - s.beta2) * g.square();
  const double correction1 = 1.0 - std::pow(static_cast<double>(s.beta1), step);
  const double correction2 = 1.0 - std::pow(static_cast<double>(s.beta2), step);
  const float step_size = static_cast<float>(s.learning_rate / correction1);
  const float root_correction2 = static_cast<float>(std::sqrt(correction2));
  if (s.weight_decay != 0.0f) p *= 1.0f - s.learning_rate * s.weight_decay;
  p -= step_size * m / (v.sqrt() / root_correction2 + s.epsilon);
}

double l2_norm(const float* x, std::size_t n) {
  return std::sqrt(ConstFlatMap(x, size(n)).cast<double>().square().sum());
}

void scale(float* x, std::size_t n, float factor) { FlatMap(x, size(n)) *= factor; }

void ema_update(float* average, const float* params, std::size_t n, float decay) {
  FlatMap a(average, size(n));
  a = decay * a + (1.0f - decay) * ConstFlatMap(params, size(n));
}

bool all_finite(const float* x, std::size_t n) { return ConstFlatMap(x, size(n)).isFinite().all(); }

}  // namespace tts::kernels
