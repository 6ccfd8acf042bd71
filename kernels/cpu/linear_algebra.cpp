#include "tts/kernels/linear_algebra.h"

namespace tts::kernels {

void gemm(MatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
          Transpose transpose_b, float alpha, float beta) {
  const bool ta = transpose_a == Transpose::kYes;
  const bool tb = transpose_b == Transpose::kYes;
  if (beta == 0.0f) c.setZero();
  else if (beta != 1.0f) c *= beta;
  // Eigen picks its blocked GEMM (or the BLAS it was told to use) for each of these products.
  if (!ta && !tb) c.noalias() += alpha * a * b;
  else if (ta && !tb) c.noalias() += alpha * a.transpose() * b;
  else if (!ta && tb) c.noalias() += alpha * a * b.transpose();
  else c.noalias() += alpha * a.transpose() * b.transpose();
}

void gemv(VectorRef y, ConstMatrixRef a, ConstVectorRef x, bool accumulate) {
  if (accumulate) y.noalias() += a * x;
  else y.noalias() = a * x;
}

void add_bias(MatrixRef x, ConstVectorRef bias) { x.colwise() += bias; }

void accumulate_row_sums(VectorRef out, ConstMatrixRef x) { out += x.rowwise().sum(); }

}  // namespace tts::kernels
