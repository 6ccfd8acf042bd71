// Internal: sampling a class from softmax(logits / T), compiled once per instruction set (isa.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa.h"

namespace tts::kernels::detail {

// Samples a class from softmax(logits · inv_temperature) by inverting its CDF at `uniform`;
// scratch (n floats) receives the unnormalised probabilities exp((logits - max) · inv_temperature).
// n ≥ 1, inv_temperature > 0. The exponential is a polynomial (a few ulp from exp) and the sum runs
// in 16 fixed lanes, so every variant adds in the same order; the variants differ only where FMA
// fuses the polynomial's multiply-adds (avx2, avx512), by an ulp or so.
inline int32_t softmax_sample_kernel(const float* logits, std::ptrdiff_t n, float inv_temperature,
                                     float uniform, float* scratch) {
  return cpu_kernels().softmax_sample(logits, n, inv_temperature, uniform, scratch);
}

// The variants; isa.cpp's registry names them.
int32_t softmax_sample_baseline(const float* logits, std::ptrdiff_t n, float inv_temperature,
                                float uniform, float* scratch);
#if defined(TTS_ISA_X86)
int32_t softmax_sample_avx2(const float* logits, std::ptrdiff_t n, float inv_temperature,
                            float uniform, float* scratch);
int32_t softmax_sample_avx512(const float* logits, std::ptrdiff_t n, float inv_temperature,
                              float uniform, float* scratch);
#elif defined(TTS_ISA_AARCH64)
int32_t softmax_sample_sve(const float* logits, std::ptrdiff_t n, float inv_temperature,
                           float uniform, float* scratch);
#endif

}  // namespace tts::kernels::detail
