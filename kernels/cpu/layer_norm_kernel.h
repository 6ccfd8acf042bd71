// Internal: one column of layer normalisation, compiled once per instruction set (isa.h).
#pragma once

#include <cstddef>

#include "isa.h"

namespace tts::kernels::detail {

// normalized = (x - mean) / sqrt(var + epsilon), y = normalized ⊙ gamma + beta over the c values
// of one column; returns 1 / sqrt(var + epsilon). y may be x. The sums run in 16 fixed lanes, so
// every variant adds in the same order; the variants differ only where FMA (avx2, avx512) fuses a
// multiply-add (the squares into their sum, γ·n + β), by about an ulp.
inline float layer_norm_column(const float* x, std::ptrdiff_t c, const float* gamma,
                               const float* beta, float epsilon, float* normalized, float* y) {
  return cpu_kernels().layer_norm_column(x, c, gamma, beta, epsilon, normalized, y);
}

// The variants; isa.cpp's registry names them.
float layer_norm_column_baseline(const float* x, std::ptrdiff_t c, const float* gamma,
                                 const float* beta, float epsilon, float* normalized, float* y);
#if defined(TTS_ISA_X86)
float layer_norm_column_avx2(const float* x, std::ptrdiff_t c, const float* gamma,
                             const float* beta, float epsilon, float* normalized, float* y);
float layer_norm_column_avx512(const float* x, std::ptrdiff_t c, const float* gamma,
                               const float* beta, float epsilon, float* normalized, float* y);
#elif defined(TTS_ISA_AARCH64)
float layer_norm_column_sve(const float* x, std::ptrdiff_t c, const float* gamma, const float* beta,
                            float epsilon, float* normalized, float* y);
#endif

}  // namespace tts::kernels::detail
