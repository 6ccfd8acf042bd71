// The acoustic model's layers, forward and backward, over batches of whole utterances packed end
// to end (`lengths` = columns per utterance; see kernels/conv1d.h). Each forward keeps what its
// backward needs in an activations struct; backward accumulates into `grads` (same layout as the
// parameters) and into dx unless dx has no columns.
#pragma once

#include <cstdint>
#include <vector>

#include "tts/frontend/acoustic/weights.h"
#include "tts/kernels/parameter_set.h"
#include "tts/kernels/tensor.h"

namespace tts::frontend {

struct ConvBlockActivations {
  kernels::Matrix unfolded;    // K·in × N, the convolution's input
  kernels::Matrix relu;        // out × N
  kernels::Matrix normalized;  // out × N, the layer norm's x̂
  kernels::Vector inv_std;     // N
  kernels::Matrix keep;        // out × N dropout mask (kernels/dropout.h); empty without dropout
};

// Dropout of a block's ReLU output in training: `rate` of the activations are zeroed, drawn from
// `seed` (a different seed for every block and step). rate 0 (the default) leaves the block as in
// synthesis.
struct Dropout {
  float rate = 0.0f;
  uint64_t seed = 0;
};

// out = LN(dropout(ReLU(conv(x))) + x) (without "+ x" when the block is not residual). Resizes
// `out`.
void conv_block_forward(const kernels::ParameterSet& p, const ConvBlockLayout& block,
                        kernels::ConstMatrixRef x, const std::vector<int>& lengths,
                        ConvBlockActivations& a, kernels::Matrix& out, Dropout dropout = {});
void conv_block_backward(const kernels::ParameterSet& p, const ConvBlockLayout& block,
                         const std::vector<int>& lengths, const ConvBlockActivations& a,
                         kernels::ConstMatrixRef d_out, kernels::ParameterSet& grads,
                         kernels::MatrixRef dx);

// y = W·x + b. Resizes `y`.
void linear_forward(const kernels::ParameterSet& p, const LinearLayout& layer,
                    kernels::ConstMatrixRef x, kernels::Matrix& y);
void linear_backward(const kernels::ParameterSet& p, const LinearLayout& layer,
                     kernels::ConstMatrixRef x, kernels::ConstMatrixRef dy,
                     kernels::ParameterSet& grads, kernels::MatrixRef dx);

}  // namespace tts::frontend
