// Internal: the matrix-vector product of sampling over weights stored in 16 bits
// (tts/kernels/compact_matrix.h, WeightPrecision::kFp16), compiled once per instruction set like
// the fp32 GEMV (gemv_kernel.h). The weights are widened to fp32 in registers and multiplied there,
// so it reads half the fp32 kernel's bytes for the same fused multiply-adds. (The 8-bit product is
// int8_gemv_kernel.h.)
//
// Column-major weights (m × n, leading dimension lda ≥ m), IEEE binary16 bit patterns, and fp32 x
// and y: y = A·x (+ y when accumulate); the sum starts from y (or 0) and adds the columns in order,
// as the fp32 GEMV does. The variants differ only in rounding (where a multiply and an add are
// fused).
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa.h"

namespace tts::kernels::detail {

// IEEE binary16 ↔ binary32, exact (every half is a float) and round-to-nearest-even: the portable
// conversions the baseline variants and the weight loader use, equal to F16C's.
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);

inline void gemv_f16_column_major(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                  std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  cpu_kernels().gemv_f16(a, lda, m, n, x, y, accumulate);
}

// The variants; isa.cpp's registry names them. The baseline is the scalar reference (F16C and
// AVX2 are x86-64-v3's, so x86-64's baseline converts in software).
void gemv_f16_baseline(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                       std::ptrdiff_t n, const float* x, float* y, bool accumulate);
#if defined(TTS_ISA_X86)
void gemv_f16_avx2(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                   const float* x, float* y, bool accumulate);
void gemv_f16_avx512(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                     const float* x, float* y, bool accumulate);
#elif defined(TTS_ISA_AARCH64)
void gemv_f16_sve(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                  const float* x, float* y, bool accumulate);
#endif

}  // namespace tts::kernels::detail
