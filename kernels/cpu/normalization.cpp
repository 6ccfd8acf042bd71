#include "tts/kernels/normalization.h"

#include <stdexcept>

#include "layer_norm_kernel.h"

namespace tts::kernels {

void layer_norm_forward(ConstMatrixRef x, ConstVectorRef gamma, ConstVectorRef beta, float epsilon,
                        MatrixRef normalized, VectorRef inv_std, MatrixRef y) {
  const Eigen::Index c = x.rows(), n = x.cols();
  if (gamma.size() != c || beta.size() != c || normalized.rows() != c || normalized.cols() != n ||
      inv_std.size() != n || y.rows() != c || y.cols() != n)
    throw std::invalid_argument("layer_norm_forward: shapes do not agree");
  for (Eigen::Index t = 0; t < n; ++t)
    inv_std(t) = detail::layer_norm_column(x.col(t).data(), c, gamma.data(), beta.data(), epsilon,
                                           normalized.col(t).data(), y.col(t).data());
}

void layer_norm_backward(ConstMatrixRef dy, ConstMatrixRef normalized, ConstVectorRef inv_std,
                         ConstVectorRef gamma, MatrixRef dx, VectorRef d_gamma, VectorRef d_beta) {
  const Eigen::Index c = dy.rows(), n = dy.cols();
  if (normalized.rows() != c || normalized.cols() != n || inv_std.size() != n ||
      gamma.size() != c || dx.rows() != c || dx.cols() != n || d_gamma.size() != c ||
      d_beta.size() != c)
    throw std::invalid_argument("layer_norm_backward: shapes do not agree");
  d_gamma += dy.cwiseProduct(normalized).rowwise().sum();
  d_beta += dy.rowwise().sum();
  const float inv_c = 1.0f / static_cast<float>(c);
  for (Eigen::Index t = 0; t < n; ++t) {
    const Vector g = dy.col(t).cwiseProduct(gamma);
    const float mean_g = g.sum() * inv_c;
    const float mean_gx = g.dot(normalized.col(t)) * inv_c;
    dx.col(t) = inv_std(t) * (g.array() - mean_g - normalized.col(t).array() * mean_gx).matrix();
  }
}

}  // namespace tts::kernels
