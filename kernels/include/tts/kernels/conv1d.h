// 1-D convolutions over time for the acoustic model, on batches of whole utterances packed end to
// end: `lengths` gives the columns of each utterance in order (they sum to the matrix's columns).
// A convolution never reads across an utterance's edge; it sees zeros there ("same" padding), so a
// packed batch gives exactly what each utterance would give on its own and no padding or mask is
// needed.
//
// Weights are out × (K·in) matrices: column block k (of `in` columns) is the tap at time offset
// k - K/2, so a kernel of odd size K is centred on the output column.
#pragma once

#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// unfolded (K·C × N): row block k holds x (C × N) shifted by k - K/2 within each utterance, zero
// where that reads outside it. `kernel_size` must be odd.
void conv1d_unfold(ConstMatrixRef x, int kernel_size, const std::vector<int>& lengths,
                   MatrixRef unfolded);
// dx += the adjoint of conv1d_unfold applied to d_unfolded.
void conv1d_unfold_backward(ConstMatrixRef d_unfolded, int kernel_size,
                            const std::vector<int>& lengths, MatrixRef dx);

// y = weight · unfold(x) + bias. `unfolded` (K·C × N, sized by the caller) keeps the unfolded
// input for the backward pass.
void conv1d_forward(ConstMatrixRef x, ConstMatrixRef weight, ConstVectorRef bias, int kernel_size,
                    const std::vector<int>& lengths, MatrixRef unfolded, MatrixRef y);

// d_weight += dy · unfoldedᵀ, d_bias += Σ_t dy, and dx += the input gradient unless dx has no
// columns (the input needs no gradient). `scratch` must be K·C × N.
void conv1d_backward(ConstMatrixRef dy, ConstMatrixRef unfolded, ConstMatrixRef weight,
                     int kernel_size, const std::vector<int>& lengths, MatrixRef d_weight,
                     VectorRef d_bias, MatrixRef scratch, MatrixRef dx);

}  // namespace tts::kernels
