#include "tts/kernels/softmax.h"

#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

#include "softmax_kernel.h"

namespace tts::kernels {

double softmax_cross_entropy(ConstMatrixRef logits, const std::vector<int32_t>& targets,
                             MatrixRef d_logits) {
  const Eigen::Index classes = logits.rows(), n = logits.cols();
  if (static_cast<Eigen::Index>(targets.size()) != n)
    throw std::invalid_argument("softmax_cross_entropy: " + std::to_string(targets.size()) +
                                " targets for " + std::to_string(n) + " columns");
  const bool want_gradient = d_logits.size() > 0;
  double total = 0.0;
  for (Eigen::Index t = 0; t < n; ++t) {
    const int32_t target = targets[t];
    if (target < 0 || target >= classes)
      throw std::invalid_argument("softmax_cross_entropy: target " + std::to_string(target) +
                                  " out of range at column " + std::to_string(t));
    const float max = logits.col(t).maxCoeff();
    if (want_gradient) {
      auto d = d_logits.col(t);
      d = (logits.col(t).array() - max).exp();
      const float sum = d.sum();
      total += std::log(static_cast<double>(sum)) - (logits(target, t) - max);
      d *= 1.0f / (sum * static_cast<float>(n));
      d(target) -= 1.0f / static_cast<float>(n);
    } else {
      const float sum = (logits.col(t).array() - max).exp().sum();
      total += std::log(static_cast<double>(sum)) - (logits(target, t) - max);
    }
  }
  return total / static_cast<double>(n);
}

int32_t softmax_sample(ConstVectorRef logits, float temperature, float uniform, VectorRef scratch) {
  if (temperature <= 0.0f) {
    Eigen::Index best = 0;
    logits.maxCoeff(&best);
    return static_cast<int32_t>(best);
  }
  assert(logits.size() > 0 && scratch.size() == logits.size());
  return detail::softmax_sample_kernel(logits.data(), logits.size(), 1.0f / temperature, uniform,
                                       scratch.data());
}

}  // namespace tts::kernels
