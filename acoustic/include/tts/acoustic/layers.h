// The acoustic model's layers, forward and backward, over batches of whole utterances packed end
// to end (`lengths` = columns per utterance; see kernels/conv1d.h), written once against the
// device-op interface (tts/kernels/ops/backend.h): every operand is a View in the memory of the
// LayerContext's backend, so the same layers run on the CPU (bit for bit the CPU kernels' results)
// and on a GPU. Each forward keeps what its backward needs in an activations struct; backward
// accumulates into the context's gradients (same layout as the parameters) and into dx unless dx
// has no data.
#pragma once

#include <cstdint>
#include <vector>

#include "tts/acoustic/weights.h"
#include "tts/kernels/ops/backend.h"
#include "tts/kernels/ops/buffer.h"
#include "tts/kernels/parameter_set.h"

namespace tts::acoustic {

// Where the layers run: the backend, its GEMM precision, and the model's flat parameters (and, for
// backward, gradients) in that backend's memory, laid out as `layout`'s entries.
struct LayerContext {
  kernels::Backend& backend;
  kernels::GemmPrecision precision = kernels::GemmPrecision::kFp32;
  const kernels::ParameterSet* layout = nullptr;
  kernels::View parameters, gradients;

  // Entry `index` of the parameters or of the gradients.
  kernels::View p(int index) const { return entry(parameters, index); }
  kernels::View g(int index) const { return entry(gradients, index); }
  kernels::View entry(kernels::View flat, int index) const;
};

struct ConvBlockActivations {
  explicit ConvBlockActivations(kernels::Backend& backend)
      : unfolded(backend), relu(backend), normalized(backend), inv_std(backend), keep(backend) {}
  kernels::Buffer unfolded;    // K·in × N, the convolution's input
  kernels::Buffer relu;        // out × N
  kernels::Buffer normalized;  // out × N, the layer norm's x̂
  kernels::Buffer inv_std;     // N × 1
  kernels::Buffer keep;        // out × N dropout mask (kernels/dropout.h); 0 × 0 without dropout
};

// Grows `blocks` to at least `count` activations on `backend` (they hold buffers, which need it).
void reserve_blocks(std::vector<ConvBlockActivations>& blocks, std::size_t count,
                    kernels::Backend& backend);

// A conv block's backward scratch, kept by the caller across blocks and steps so that its large
// buffers are allocated once.
struct ConvBlockScratch {
  explicit ConvBlockScratch(kernels::Backend& backend) : d_sum(backend), d_unfolded(backend) {}
  kernels::Buffer d_sum, d_unfolded;
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
void conv_block_forward(const LayerContext& c, const ConvBlockLayout& block, kernels::View x,
                        const kernels::Lengths& lengths, ConvBlockActivations& a,
                        kernels::Buffer& out, Dropout dropout = {});
void conv_block_backward(const LayerContext& c, const ConvBlockLayout& block,
                         const kernels::Lengths& lengths, const ConvBlockActivations& a,
                         kernels::View d_out, kernels::View dx, ConvBlockScratch& scratch);

// y = W·x + b. Resizes `y`.
void linear_forward(const LayerContext& c, const LinearLayout& layer, kernels::View x,
                    kernels::Buffer& y);
void linear_backward(const LayerContext& c, const LinearLayout& layer, kernels::View x,
                     kernels::View dy, kernels::View dx);

}  // namespace tts::acoustic
