// Inverted dropout (Srivastava et al., 2014): in training each activation is kept with probability
// 1 - rate and scaled by 1 / (1 - rate), so synthesis runs the layers unchanged.
#pragma once

#include <cstdint>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// Fills `keep` with 0 (dropped) or 1 / (1 - rate) (kept); multiply activations by it in the
// forward pass and their gradients by it in the backward pass. Each element is a pure function of
// (seed, its index), so a resumed run draws the same masks and no generator state is kept.
// rate must lie in [0, 1); rate 0 keeps everything (all ones).
void dropout_mask(float rate, uint64_t seed, MatrixRef keep);

}  // namespace tts::kernels
