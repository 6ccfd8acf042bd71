// Internal: the element-wise maths of the gated unit, compiled once per instruction set.
#pragma once

#include <cstddef>

#include "isa.h"

namespace tts::kernels::detail {

// out[i] = tanh(filter[i]) · sigmoid(gate[i]); when keep_tanh/keep_sigmoid are non-null they
// receive the two factors (for the backward pass). The same arithmetic runs in every vector lane
// and in the scalar tail, so a value never depends on where it sits in the array: a sampler that
// gates 32 channels at a time gets bit-identical results to training that gates whole matrices
// (in one variant: the variants differ in rounding, e.g. where FMA fuses a multiply and an add).
inline void gated_tanh_sigmoid(const float* filter, const float* gate, float* out, float* keep_tanh,
                               float* keep_sigmoid, std::ptrdiff_t n) {
  cpu_kernels().gate(filter, gate, out, keep_tanh, keep_sigmoid, n);
}

// The variants (isa.h); isa.cpp's registry names them.
void gated_tanh_sigmoid_baseline(const float* filter, const float* gate, float* out,
                                 float* keep_tanh, float* keep_sigmoid, std::ptrdiff_t n);
#if defined(TTS_ISA_X86)
void gated_tanh_sigmoid_avx2(const float* filter, const float* gate, float* out, float* keep_tanh,
                             float* keep_sigmoid, std::ptrdiff_t n);
void gated_tanh_sigmoid_avx512(const float* filter, const float* gate, float* out, float* keep_tanh,
                               float* keep_sigmoid, std::ptrdiff_t n);
#elif defined(TTS_ISA_AARCH64)
void gated_tanh_sigmoid_sve(const float* filter, const float* gate, float* out, float* keep_tanh,
                            float* keep_sigmoid, std::ptrdiff_t n);
#endif

}  // namespace tts::kernels::detail
