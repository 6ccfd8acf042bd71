#include "tts/kernels/conv1d.h"

#include <algorithm>
#include <stdexcept>

#include "tts/kernels/linear_algebra.h"

namespace tts::kernels {

namespace {

void check_lengths(const std::vector<int>& lengths, Eigen::Index columns, int kernel_size) {
  if (kernel_size < 1 || kernel_size % 2 == 0)
    throw std::invalid_argument("conv1d: kernel size must be odd and positive");
  Eigen::Index total = 0;
  for (int length : lengths) {
    if (length < 0) throw std::invalid_argument("conv1d: negative utterance length");
    total += length;
  }
  if (total != columns) throw std::invalid_argument("conv1d: lengths do not sum to the columns");
}

// Calls copy(source_column, target_column, count) for every run of columns that tap k reads
// inside one utterance.
template <typename Copy>
void for_each_tap_run(int kernel_size, const std::vector<int>& lengths, int k, Copy copy) {
  const int offset = k - kernel_size / 2;
  Eigen::Index start = 0;
  for (int length : lengths) {
    const int first = std::max(0, -offset), last = std::min(length, length - offset);
    if (last > first) copy(start + first + offset, start + first, last - first);
    start += length;
  }
}

}  // namespace

void conv1d_unfold(ConstMatrixRef x, int kernel_size, const std::vector<int>& lengths,
                   MatrixRef unfolded) {
  check_lengths(lengths, x.cols(), kernel_size);
  const Eigen::Index c = x.rows();
  if (unfolded.rows() != kernel_size * c || unfolded.cols() != x.cols())
    throw std::invalid_argument("conv1d_unfold: unfolded must be K·C × N");
  unfolded.setZero();
  for (int k = 0; k < kernel_size; ++k)
    for_each_tap_run(kernel_size, lengths, k,
                     [&](Eigen::Index source, Eigen::Index target, Eigen::Index count) {
                       unfolded.block(k * c, target, c, count) = x.middleCols(source, count);
                     });
}

void conv1d_unfold_backward(ConstMatrixRef d_unfolded, int kernel_size,
                            const std::vector<int>& lengths, MatrixRef dx) {
  check_lengths(lengths, dx.cols(), kernel_size);
  const Eigen::Index c = dx.rows();
  if (d_unfolded.rows() != kernel_size * c || d_unfolded.cols() != dx.cols())
    throw std::invalid_argument("conv1d_unfold_backward: shapes do not agree");
  for (int k = 0; k < kernel_size; ++k)
    for_each_tap_run(kernel_size, lengths, k,
                     [&](Eigen::Index source, Eigen::Index target, Eigen::Index count) {
                       dx.middleCols(source, count) += d_unfolded.block(k * c, target, c, count);
                     });
}

void conv1d_forward(ConstMatrixRef x, ConstMatrixRef weight, ConstVectorRef bias, int kernel_size,
                    const std::vector<int>& lengths, MatrixRef unfolded, MatrixRef y) {
  if (weight.cols() != kernel_size * x.rows() || weight.rows() != y.rows() ||
      bias.size() != y.rows() || y.cols() != x.cols())
    throw std::invalid_argument("conv1d_forward: shapes do not agree");
  conv1d_unfold(x, kernel_size, lengths, unfolded);
  gemm(y, weight, Transpose::kNo, unfolded, Transpose::kNo);
  add_bias(y, bias);
}

void conv1d_backward(ConstMatrixRef dy, ConstMatrixRef unfolded, ConstMatrixRef weight,
                     int kernel_size, const std::vector<int>& lengths, MatrixRef d_weight,
                     VectorRef d_bias, MatrixRef scratch, MatrixRef dx) {
  gemm(d_weight, dy, Transpose::kNo, unfolded, Transpose::kYes, 1.0f, 1.0f);
  accumulate_row_sums(d_bias, dy);
  if (dx.cols() == 0) return;
  gemm(scratch, weight, Transpose::kYes, dy, Transpose::kNo);
  conv1d_unfold_backward(scratch, kernel_size, lengths, dx);
}

}  // namespace tts::kernels
