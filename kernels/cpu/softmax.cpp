#include "tts/kernels/softmax.h"

#include <cmath>
#include <stdexcept>
#include <string>

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
  Eigen::Index best = 0;
  const float max = logits.maxCoeff(&best);
  if (temperature <= 0.0f) return static_cast<int32_t>(best);
  scratch = ((logits.array() - max) * (1.0f / temperature)).exp();
  const float target = uniform * scratch.sum();
  // Inverse CDF by a linear scan: the classes are few (256) and the scan is branch-predictable.
  float cumulative = 0.0f;
  const Eigen::Index n = scratch.size();
  for (Eigen::Index k = 0; k < n; ++k) {
    cumulative += scratch[k];
    if (target < cumulative) return static_cast<int32_t>(k);
  }
  // Rounding can leave target == sum: return the last class with non-zero probability.
  for (Eigen::Index k = n - 1; k > 0; --k)
    if (scratch[k] > 0.0f) return static_cast<int32_t>(k);
  return 0;
}

}  // namespace tts::kernels
