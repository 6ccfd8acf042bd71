// Layer normalisation over the channels of each column (time step), as in FastSpeech's conv
// blocks: y = γ ⊙ (x - mean) / sqrt(var + ε) + β, with mean and variance over the rows.
#pragma once

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// `normalized` (C × N) and `inv_std` (N) keep what the backward pass needs; y may alias x.
void layer_norm_forward(ConstMatrixRef x, ConstVectorRef gamma, ConstVectorRef beta, float epsilon,
                        MatrixRef normalized, VectorRef inv_std, MatrixRef y);

// dx = the input gradient (overwritten); d_gamma and d_beta are accumulated.
void layer_norm_backward(ConstMatrixRef dy, ConstMatrixRef normalized, ConstVectorRef inv_std,
                         ConstVectorRef gamma, MatrixRef dx, VectorRef d_gamma, VectorRef d_beta);

}  // namespace tts::kernels
