#include "compact_gemv_kernel.h"

#include <cstring>

#if defined(TTS_ISA_X86)
#include <immintrin.h>
#endif

namespace tts::kernels::detail {

namespace {

TTS_ISA_INLINE std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TTS_ISA_INLINE float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// binary16 → binary32. On aarch64 the hardware's own conversion (FCVT, and FCVTL in vector
// loops); elsewhere the exponent is moved by a multiplication by 2^112, exact for normals and
// subnormals alike (the mantissa is untouched), and for infinities and NaNs the exponent's bits are
// then all set, keeping their payload. Branch-free integer and float operations, so the baseline's
// loops vectorise with SSE2.
TTS_ISA_INLINE float widen(std::uint16_t h) {
#if defined(__aarch64__)
  __fp16 v;
  std::memcpy(&v, &h, sizeof v);
  return static_cast<float>(v);
#else
  const std::uint32_t half = h;
  const std::uint32_t magnitude = (half & 0x7fffu) << 13;
  const std::uint32_t special = (half & 0x7c00u) == 0x7c00u ? 0x7f800000u : 0u;
  return bits_float(float_bits(bits_float(magnitude) * 0x1p112f) | special |
                    ((half & 0x8000u) << 16));
#endif
}

// The scalar reference, in blocks of rows as the fp32 GEMV (gemv_kernel.cpp): the accumulators
// stay in registers while the columns stream past.
template <int kRows>
TTS_ISA_INLINE void f16_block(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t n,
                              const float* x, float* y, bool accumulate) {
  float acc[kRows];
  for (int k = 0; k < kRows; ++k) acc[k] = accumulate ? y[k] : 0.0f;
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    const float xj = x[j];
    const std::uint16_t* column = a + j * lda;
    for (int k = 0; k < kRows; ++k) acc[k] += widen(column[k]) * xj;
  }
  for (int k = 0; k < kRows; ++k) y[k] = acc[k];
}

TTS_ISA_INLINE void f16_body(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                             std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  std::ptrdiff_t r = 0;
  for (; r + 64 <= m; r += 64) f16_block<64>(a + r, lda, n, x, y + r, accumulate);
  for (; r + 16 <= m; r += 16) f16_block<16>(a + r, lda, n, x, y + r, accumulate);
  for (; r < m; ++r) f16_block<1>(a + r, lda, n, x, y + r, accumulate);
}

#if defined(TTS_ISA_X86)
// AVX2 with F16C (x86-64-v3): 8 rows per register, kVecs registers of accumulators per block;
// each column's slice is one load, one widening and one fused multiply-add per register.
template <int kVecs>
TTS_TARGET_AVX2 TTS_ISA_INLINE void f16_block_avx2(const std::uint16_t* a, std::ptrdiff_t lda,
                                                   std::ptrdiff_t n, const float* x, float* y,
                                                   bool accumulate) {
  __m256 acc[kVecs];
  for (int k = 0; k < kVecs; ++k)
    acc[k] = accumulate ? _mm256_loadu_ps(y + 8 * k) : _mm256_setzero_ps();
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    const __m256 xj = _mm256_broadcast_ss(x + j);
    const std::uint16_t* column = a + j * lda;
    for (int k = 0; k < kVecs; ++k) {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(column + 8 * k));
      acc[k] = _mm256_fmadd_ps(_mm256_cvtph_ps(h), xj, acc[k]);
    }
  }
  for (int k = 0; k < kVecs; ++k) _mm256_storeu_ps(y + 8 * k, acc[k]);
}

// AVX-512: 16 rows per register.
template <int kVecs>
TTS_TARGET_AVX512 TTS_ISA_INLINE void f16_block_avx512(const std::uint16_t* a, std::ptrdiff_t lda,
                                                       std::ptrdiff_t n, const float* x, float* y,
                                                       bool accumulate) {
  __m512 acc[kVecs];
  for (int k = 0; k < kVecs; ++k)
    acc[k] = accumulate ? _mm512_loadu_ps(y + 16 * k) : _mm512_setzero_ps();
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    const __m512 xj = _mm512_set1_ps(x[j]);
    const std::uint16_t* column = a + j * lda;
    for (int k = 0; k < kVecs; ++k) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(column + 16 * k));
      acc[k] = _mm512_fmadd_ps(_mm512_maskz_cvtph_ps(0xffff, h), xj, acc[k]);
    }
  }
  for (int k = 0; k < kVecs; ++k) _mm512_storeu_ps(y + 16 * k, acc[k]);
}

#endif

}  // namespace

float half_to_float(std::uint16_t h) { return widen(h); }

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = float_bits(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN: quiet, with the payload's top bits
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // ≥ 2^16
  auto round_shifted = [](std::uint32_t value, std::uint32_t shift) {
    std::uint32_t q = value >> shift;
    const std::uint32_t rest = value & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u))) ++q;  // to nearest, ties to even
    return q;
  };
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal half (or zero), in units of 2^-24
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t shift = 126u - exponent;
    if (exponent == 0 || shift > 24u) return sign;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return static_cast<std::uint16_t>(sign | round_shifted(mantissa, shift));
  }
  // A normal half; a carry out of the mantissa moves the exponent up, to infinity at the top.
  return static_cast<std::uint16_t>(sign | round_shifted(magnitude - (112u << 23), 13));
}

void gemv_f16_baseline(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                       std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  f16_body(a, lda, m, n, x, y, accumulate);
}

#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 void gemv_f16_avx2(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                   std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  std::ptrdiff_t r = 0;
  for (; r + 64 <= m; r += 64) f16_block_avx2<8>(a + r, lda, n, x, y + r, accumulate);
  for (; r + 8 <= m; r += 8) f16_block_avx2<1>(a + r, lda, n, x, y + r, accumulate);
  for (; r < m; ++r) f16_block<1>(a + r, lda, n, x, y + r, accumulate);
}

TTS_TARGET_AVX512 void gemv_f16_avx512(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                       std::ptrdiff_t n, const float* x, float* y,
                                       bool accumulate) {
  std::ptrdiff_t r = 0;
  for (; r + 128 <= m; r += 128) f16_block_avx512<8>(a + r, lda, n, x, y + r, accumulate);
  for (; r + 64 <= m; r += 64) f16_block_avx512<4>(a + r, lda, n, x, y + r, accumulate);
  for (; r + 16 <= m; r += 16) f16_block_avx512<1>(a + r, lda, n, x, y + r, accumulate);
  for (; r < m; ++r) f16_block<1>(a + r, lda, n, x, y + r, accumulate);
}

#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE void gemv_f16_sve(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                 std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  f16_body(a, lda, m, n, x, y, accumulate);
}

#endif

}  // namespace tts::kernels::detail
