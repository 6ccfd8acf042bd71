// Moving data along time: causal shifts for dilated convolutions, frame-to-sample interpolation of
// conditioning, and embedding lookups. Batches are `segments` equal-length runs of columns.
#pragma once

#include <cstdint>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// out[:, s·T + t] = x[:, s·T + t - shift] for t >= shift, else 0, per segment of T = cols/segments.
void causal_shift(ConstMatrixRef x, int shift, int segments, MatrixRef out);
// dx[:, s·T + t] += d_out[:, s·T + t + shift] for t + shift < T (the adjoint of causal_shift).
void causal_shift_backward(ConstMatrixRef d_out, int shift, int segments, MatrixRef dx);

// Linear interpolation between frame columns, added to out: out[:, n] += (1 - w[n])·frames[:, i[n]]
// + w[n]·frames[:, i[n] + 1]. i[n] + 1 must be a valid column whenever w[n] != 0.
void add_interpolated_columns(ConstMatrixRef frames, const std::vector<int32_t>& index,
                              const std::vector<float>& weight, MatrixRef out);
// d_frames += the adjoint of add_interpolated_columns applied to d_out.
void add_interpolated_columns_backward(ConstMatrixRef d_out, const std::vector<int32_t>& index,
                                       const std::vector<float>& weight, MatrixRef d_frames);

// out[:, n] = table[:, ids[n]].
void embedding_lookup(ConstMatrixRef table, const std::vector<int32_t>& ids, MatrixRef out);
// d_table[:, ids[n]] += d_out[:, n].
void embedding_backward(ConstMatrixRef d_out, const std::vector<int32_t>& ids, MatrixRef d_table);

}  // namespace tts::kernels
