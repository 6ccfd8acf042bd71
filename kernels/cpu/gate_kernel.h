// Internal: the element-wise maths of the gated unit, compiled once per instruction set.
#pragma once

#include <cstddef>

namespace tts::kernels::detail {

// out[i] = tanh(filter[i]) · sigmoid(gate[i]); when keep_tanh/keep_sigmoid are non-null they
// receive the two factors (for the backward pass). The same arithmetic runs in every vector lane
// and in the scalar tail, so a value never depends on where it sits in the array: a sampler that
// gates 32 channels at a time gets bit-identical results to training that gates whole matrices.
void gated_tanh_sigmoid(const float* filter, const float* gate, float* out, float* keep_tanh,
                        float* keep_sigmoid, std::ptrdiff_t n);

}  // namespace tts::kernels::detail
