// Internal: the matrix-vector products of sampling over weights stored in 16 or 8 bits
// (tts/kernels/compact_matrix.h), compiled once per instruction set like the fp32 GEMV
// (gemv_kernel.h). The weights are widened to fp32 in registers and multiplied there, so these
// read half or a quarter of the fp32 kernel's bytes for the same fused multiply-adds: sampling
// streams every weight once per sample and is bound by those bytes.
//
// Both take column-major weights (m × n, leading dimension lda ≥ m) and fp32 x and y:
//   fp16:  y = A·x (+ y when accumulate), A's elements IEEE binary16 bit patterns; the sum starts
//          from y (or 0) and adds the columns in order, as the fp32 GEMV does.
//   int8:  y = scale ⊙ (Q·x) (+ y when accumulate), one scale per row; Q·x is summed from 0.
// The variants differ only in rounding (where a multiply and an add are fused).
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

inline void gemv_i8_column_major(const std::int8_t* a, const float* row_scale, std::ptrdiff_t lda,
                                 std::ptrdiff_t m, std::ptrdiff_t n, const float* x, float* y,
                                 bool accumulate) {
  cpu_kernels().gemv_i8(a, row_scale, lda, m, n, x, y, accumulate);
}

// The variants; isa.cpp's registry names them. The baseline is the scalar reference (F16C and
// AVX2 are x86-64-v3's, so x86-64's baseline converts in software).
void gemv_f16_baseline(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                       std::ptrdiff_t n, const float* x, float* y, bool accumulate);
void gemv_i8_baseline(const std::int8_t* a, const float* row_scale, std::ptrdiff_t lda,
                      std::ptrdiff_t m, std::ptrdiff_t n, const float* x, float* y,
                      bool accumulate);
#if defined(TTS_ISA_X86)
void gemv_f16_avx2(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                   const float* x, float* y, bool accumulate);
void gemv_i8_avx2(const std::int8_t* a, const float* row_scale, std::ptrdiff_t lda,
                  std::ptrdiff_t m, std::ptrdiff_t n, const float* x, float* y, bool accumulate);
void gemv_f16_avx512(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                     const float* x, float* y, bool accumulate);
void gemv_i8_avx512(const std::int8_t* a, const float* row_scale, std::ptrdiff_t lda,
                    std::ptrdiff_t m, std::ptrdiff_t n, const float* x, float* y, bool accumulate);
#elif defined(TTS_ISA_AARCH64)
void gemv_f16_sve(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                  const float* x, float* y, bool accumulate);
void gemv_i8_sve(const std::int8_t* a, const float* row_scale, std::ptrdiff_t lda, std::ptrdiff_t m,
                 std::ptrdiff_t n, const float* x, float* y, bool accumulate);
#endif

}  // namespace tts::kernels::detail
