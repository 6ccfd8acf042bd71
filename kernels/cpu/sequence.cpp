#include "tts/kernels/sequence.h"

#include <stdexcept>
#include <string>

namespace tts::kernels {

namespace {
Eigen::Index segment_length(Eigen::Index cols, int segments) {
  if (segments <= 0 || cols % segments != 0)
    throw std::invalid_argument("causal_shift: " + std::to_string(cols) +
                                " columns do not split into " + std::to_string(segments) +
                                " equal segments");
  return cols / segments;
}
}  // namespace

void causal_shift(ConstMatrixRef x, int shift, int segments, MatrixRef out) {
  const Eigen::Index length = segment_length(x.cols(), segments);
  const Eigen::Index kept = std::max<Eigen::Index>(0, length - shift);
  const Eigen::Index zeros = length - kept;
  for (int s = 0; s < segments; ++s) {
    const Eigen::Index start = s * length;
    out.middleCols(start, zeros).setZero();
    out.middleCols(start + zeros, kept) = x.middleCols(start, kept);
  }
}

void causal_shift_backward(ConstMatrixRef d_out, int shift, int segments, MatrixRef dx) {
  const Eigen::Index length = segment_length(d_out.cols(), segments);
  const Eigen::Index kept = std::max<Eigen::Index>(0, length - shift);
  for (int s = 0; s < segments; ++s) {
    const Eigen::Index start = s * length;
    dx.middleCols(start, kept) += d_out.middleCols(start + length - kept, kept);
  }
}

void add_interpolated_columns(ConstMatrixRef frames, const std::vector<int32_t>& index,
                              const std::vector<float>& weight, MatrixRef out) {
  const Eigen::Index n = out.cols();
  for (Eigen::Index t = 0; t < n; ++t) {
    const float w = weight[t];
    if (w == 0.0f)
      out.col(t) += frames.col(index[t]);
    else
      out.col(t) += (1.0f - w) * frames.col(index[t]) + w * frames.col(index[t] + 1);
  }
}

void add_interpolated_columns_backward(ConstMatrixRef d_out, const std::vector<int32_t>& index,
                                       const std::vector<float>& weight, MatrixRef d_frames) {
  const Eigen::Index n = d_out.cols();
  for (Eigen::Index t = 0; t < n; ++t) {
    const float w = weight[t];
    d_frames.col(index[t]) += (1.0f - w) * d_out.col(t);
    if (w != 0.0f) d_frames.col(index[t] + 1) += w * d_out.col(t);
  }
}

void embedding_lookup(ConstMatrixRef table, const std::vector<int32_t>& ids, MatrixRef out) {
  for (std::size_t n = 0; n < ids.size(); ++n) out.col(n) = table.col(ids[n]);
}

void embedding_backward(ConstMatrixRef d_out, const std::vector<int32_t>& ids, MatrixRef d_table) {
  for (std::size_t n = 0; n < ids.size(); ++n) d_table.col(ids[n]) += d_out.col(n);
}

}  // namespace tts::kernels
