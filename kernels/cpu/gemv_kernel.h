// Internal: the matrix-vector product of incremental sampling, compiled once per instruction set.
#pragma once

#include <cstddef>

#include "isa.h"

namespace tts::kernels::detail {

// y = A·x (+ y when accumulate) for column-major A (m × n, leading dimension lda), in the variant
// selected for this CPU (isa.h).
inline void gemv_column_major(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                              std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  cpu_kernels().gemv(a, lda, m, n, x, y, accumulate);
}

// The variants (the same arithmetic, one per ISA built); isa.cpp's registry names them.
void gemv_column_major_baseline(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                std::ptrdiff_t n, const float* x, float* y, bool accumulate);
#if defined(TTS_ISA_X86)
void gemv_column_major_avx2(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                            const float* x, float* y, bool accumulate);
void gemv_column_major_avx512(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                              std::ptrdiff_t n, const float* x, float* y, bool accumulate);
#elif defined(TTS_ISA_AARCH64)
void gemv_column_major_sve(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                           const float* x, float* y, bool accumulate);
#endif

}  // namespace tts::kernels::detail
