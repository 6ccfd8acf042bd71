// Scalar references for the device-op interface (tts/kernels/ops/backend.h), written from each op's
// definition with plain loops in double, independent of the CPU kernels they check
// (tests/backend_ops_test.cpp). Matrices are column-major Eigen matrices used only as storage.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "tts/kernels/dropout_hash.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/tensor.h"

namespace tts::testing::scalar {

using kernels::Matrix;
using kernels::Transpose;

inline double at(const Matrix& m, Transpose t, int r, int c) {
  return t == Transpose::kYes ? m(c, r) : m(r, c);
}

// c = alpha · op(a) · op(b) + beta · c.
inline Matrix gemm(const Matrix& c, const Matrix& a, Transpose ta, const Matrix& b, Transpose tb,
                   float alpha, float beta) {
  Matrix out(c.rows(), c.cols());
  const int k = static_cast<int>(ta == Transpose::kYes ? a.rows() : a.cols());
  for (int i = 0; i < out.rows(); ++i)
    for (int j = 0; j < out.cols(); ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) sum += at(a, ta, i, p) * at(b, tb, p, j);
      out(i, j) = static_cast<float>(alpha * sum + (beta == 0.0f ? 0.0 : beta * double(c(i, j))));
    }
  return out;
}

inline Matrix add_bias(Matrix x, const Matrix& bias) {
  for (int j = 0; j < x.cols(); ++j)
    for (int i = 0; i < x.rows(); ++i) x(i, j) += bias(i, 0);
  return x;
}

inline Matrix row_sums(Matrix out, const Matrix& x) {
  for (int i = 0; i < x.rows(); ++i) {
    double sum = 0.0;
    for (int j = 0; j < x.cols(); ++j) sum += x(i, j);
    out(i, 0) = static_cast<float>(out(i, 0) + sum);
  }
  return out;
}

inline Matrix relu(Matrix x) {
  for (int k = 0; k < x.size(); ++k) x.data()[k] = x.data()[k] > 0.0f ? x.data()[k] : 0.0f;
  return x;
}

inline Matrix relu_backward(const Matrix& dy, const Matrix& y) {
  Matrix dx(dy.rows(), dy.cols());
  for (int k = 0; k < dy.size(); ++k) dx.data()[k] = y.data()[k] > 0.0f ? dy.data()[k] : 0.0f;
  return dx;
}

// gated, tanh, sigmoid of a 2R × N z.
inline std::vector<Matrix> gate_forward(const Matrix& z) {
  const int r = static_cast<int>(z.rows() / 2);
  Matrix gated(r, z.cols()), t(r, z.cols()), s(r, z.cols());
  for (int j = 0; j < z.cols(); ++j)
    for (int i = 0; i < r; ++i) {
      t(i, j) = static_cast<float>(std::tanh(double(z(i, j))));
      s(i, j) = static_cast<float>(1.0 / (1.0 + std::exp(-double(z(i + r, j)))));
      gated(i, j) = static_cast<float>(double(t(i, j)) * s(i, j));
    }
  return {gated, t, s};
}

inline Matrix gate_backward(const Matrix& d, const Matrix& t, const Matrix& s) {
  const int r = static_cast<int>(d.rows());
  Matrix dz(2 * r, d.cols());
  for (int j = 0; j < d.cols(); ++j)
    for (int i = 0; i < r; ++i) {
      const double dd = d(i, j), tt = t(i, j), ss = s(i, j);
      dz(i, j) = static_cast<float>(dd * ss * (1.0 - tt * tt));
      dz(i + r, j) = static_cast<float>(dd * tt * ss * (1.0 - ss));
    }
  return dz;
}

inline Matrix causal_shift(const Matrix& x, int shift, int segments) {
  const int length = static_cast<int>(x.cols()) / segments;
  Matrix out = Matrix::Zero(x.rows(), x.cols());
  for (int s = 0; s < segments; ++s)
    for (int t = shift; t < length; ++t) out.col(s * length + t) = x.col(s * length + t - shift);
  return out;
}

inline Matrix causal_shift_backward(const Matrix& d_out, int shift, int segments, Matrix dx) {
  const int length = static_cast<int>(d_out.cols()) / segments;
  for (int s = 0; s < segments; ++s)
    for (int t = 0; t + shift < length; ++t)
      dx.col(s * length + t) += d_out.col(s * length + t + shift);
  return dx;
}

inline Matrix interpolate(const Matrix& frames, const std::vector<std::int32_t>& index,
                          const std::vector<float>& weight, Matrix out) {
  for (int n = 0; n < out.cols(); ++n)
    for (int i = 0; i < out.rows(); ++i) {
      double v = (1.0 - weight[n]) * frames(i, index[n]);
      if (weight[n] != 0.0f) v += double(weight[n]) * frames(i, index[n] + 1);
      out(i, n) = static_cast<float>(out(i, n) + v);
    }
  return out;
}

inline Matrix interpolate_backward(const Matrix& d_out, const std::vector<std::int32_t>& index,
                                   const std::vector<float>& weight, Matrix d_frames) {
  Eigen::MatrixXd sums = d_frames.cast<double>();
  for (int n = 0; n < d_out.cols(); ++n)
    for (int i = 0; i < d_out.rows(); ++i) {
      sums(i, index[n]) += (1.0 - weight[n]) * d_out(i, n);
      if (weight[n] != 0.0f) sums(i, index[n] + 1) += double(weight[n]) * d_out(i, n);
    }
  return sums.cast<float>();
}

inline Matrix gather(const Matrix& table, const std::vector<std::int32_t>& ids) {
  Matrix out(table.rows(), static_cast<Eigen::Index>(ids.size()));
  for (std::size_t n = 0; n < ids.size(); ++n) out.col(n) = table.col(ids[n]);
  return out;
}

inline Matrix scatter(const Matrix& d_out, const std::vector<std::int32_t>& ids, Matrix d_table) {
  Eigen::MatrixXd sums = d_table.cast<double>();
  for (std::size_t n = 0; n < ids.size(); ++n) sums.col(ids[n]) += d_out.col(n).cast<double>();
  return sums.cast<float>();
}

// The owner (input column) of every output column of repeat_columns.
inline std::vector<std::int32_t> owners(const std::vector<int>& durations) {
  std::vector<std::int32_t> owner;
  for (std::size_t p = 0; p < durations.size(); ++p)
    owner.insert(owner.end(), durations[p], static_cast<std::int32_t>(p));
  return owner;
}

// unfold (K·C × N) of x within each utterance.
inline Matrix unfold(const Matrix& x, int k_size, const std::vector<int>& lengths) {
  const int c = static_cast<int>(x.rows());
  Matrix out = Matrix::Zero(k_size * c, x.cols());
  int start = 0;
  for (int length : lengths) {
    for (int t = 0; t < length; ++t)
      for (int k = 0; k < k_size; ++k) {
        const int source = t + k - k_size / 2;
        if (source >= 0 && source < length)
          out.block(k * c, start + t, c, 1) = x.col(start + source);
      }
    start += length;
  }
  return out;
}

inline Matrix unfold_backward(const Matrix& d_unfolded, int k_size, const std::vector<int>& lengths,
                              Matrix dx) {
  const int c = static_cast<int>(dx.rows());
  Eigen::MatrixXd sums = dx.cast<double>();
  int start = 0;
  for (int length : lengths) {
    for (int t = 0; t < length; ++t)
      for (int k = 0; k < k_size; ++k) {
        const int source = t + k - k_size / 2;
        if (source >= 0 && source < length)
          sums.col(start + source) += d_unfolded.block(k * c, start + t, c, 1).cast<double>();
      }
    start += length;
  }
  return sums.cast<float>();
}

// normalized, inv_std (1 × N), y.
inline std::vector<Matrix> layer_norm(const Matrix& x, const Matrix& gamma, const Matrix& beta,
                                      float epsilon) {
  const int c = static_cast<int>(x.rows()), n = static_cast<int>(x.cols());
  Matrix normalized(c, n), inv_std(1, n), y(c, n);
  for (int j = 0; j < n; ++j) {
    double mean = 0.0, variance = 0.0;
    for (int i = 0; i < c; ++i) mean += x(i, j);
    mean /= c;
    for (int i = 0; i < c; ++i) variance += (x(i, j) - mean) * (x(i, j) - mean);
    const double inv = 1.0 / std::sqrt(variance / c + epsilon);
    inv_std(0, j) = static_cast<float>(inv);
    for (int i = 0; i < c; ++i) {
      normalized(i, j) = static_cast<float>((x(i, j) - mean) * inv);
      y(i, j) = static_cast<float>(double(gamma(i, 0)) * normalized(i, j) + beta(i, 0));
    }
  }
  return {normalized, inv_std, y};
}

// dx, d_gamma, d_beta (the last two added to the given ones).
inline std::vector<Matrix> layer_norm_backward(const Matrix& dy, const Matrix& normalized,
                                               const Matrix& inv_std, const Matrix& gamma,
                                               Matrix d_gamma, Matrix d_beta) {
  const int c = static_cast<int>(dy.rows()), n = static_cast<int>(dy.cols());
  Matrix dx(c, n);
  for (int j = 0; j < n; ++j) {
    double mean_g = 0.0, mean_gx = 0.0;
    for (int i = 0; i < c; ++i) {
      const double g = double(dy(i, j)) * gamma(i, 0);
      mean_g += g / c;
      mean_gx += g * normalized(i, j) / c;
    }
    for (int i = 0; i < c; ++i)
      dx(i, j) = static_cast<float>(
          inv_std(0, j) * (double(dy(i, j)) * gamma(i, 0) - mean_g - normalized(i, j) * mean_gx));
  }
  for (int i = 0; i < c; ++i) {
    double dg = d_gamma(i, 0), db = d_beta(i, 0);
    for (int j = 0; j < n; ++j) {
      dg += double(dy(i, j)) * normalized(i, j);
      db += dy(i, j);
    }
    d_gamma(i, 0) = static_cast<float>(dg);
    d_beta(i, 0) = static_cast<float>(db);
  }
  return {dx, d_gamma, d_beta};
}

inline Matrix dropout_mask(float rate, std::uint64_t seed, int rows, int cols) {
  Matrix keep(rows, cols);
  const std::uint64_t stream = kernels::dropout_mix(seed);
  for (int k = 0; k < keep.size(); ++k)
    keep.data()[k] = kernels::dropout_keep(stream, k, rate, 1.0f / (1.0f - rate));
  return keep;
}

// The mean cross-entropy, and its gradient in *d.
inline double softmax_cross_entropy(const Matrix& logits, const std::vector<std::int32_t>& targets,
                                    Matrix* d) {
  const int classes = static_cast<int>(logits.rows()), n = static_cast<int>(logits.cols());
  *d = Matrix(classes, n);
  double total = 0.0;
  for (int j = 0; j < n; ++j) {
    double max = logits(0, j), sum = 0.0;
    for (int i = 1; i < classes; ++i) max = std::max(max, double(logits(i, j)));
    for (int i = 0; i < classes; ++i) sum += std::exp(logits(i, j) - max);
    total += std::log(sum) - (logits(targets[j], j) - max);
    for (int i = 0; i < classes; ++i)
      (*d)(i, j) = static_cast<float>((std::exp(logits(i, j) - max) / sum - (i == targets[j])) / n);
  }
  return total / n;
}

// mean((p - t)²) or mean(|p - t|), with scale times the gradient in *d.
inline double regression_loss(const Matrix& p, const Matrix& t, float scale, bool l1, Matrix* d) {
  const double n = static_cast<double>(p.size());
  *d = Matrix(p.rows(), p.cols());
  double total = 0.0;
  for (int k = 0; k < p.size(); ++k) {
    const double e = double(p.data()[k]) - t.data()[k];
    total += l1 ? std::abs(e) : e * e;
    d->data()[k] = static_cast<float>(l1 ? (e > 0) - (e < 0) : 2.0 * e) * (scale / n);
  }
  return total / n;
}

}  // namespace tts::testing::scalar
