#include "int8_gemv_kernel.h"

#include <cmath>
#include <cstring>
#include <limits>

#if defined(TTS_ISA_X86)
#include <immintrin.h>
#endif

namespace tts::kernels::detail {

namespace {

constexpr std::ptrdiff_t kTileBytes = kInt8TileRows * kInt8TileCols;

std::ptrdiff_t column_groups(std::ptrdiff_t n) { return (n + kInt8TileCols - 1) / kInt8TileCols; }

// quantise_i8 (int8_gemv_kernel.h), in three steps that the AVX2 variant shares: the scan for
// the largest magnitude (and any NaN or infinity), the check whether there is a scale to round
// to, and the rounding. Every variant rounds the same way (to nearest, ties to even, the default
// mode), so every variant computes the same integer sums.
TTS_ISA_INLINE void scan_magnitudes(const float* x, std::ptrdiff_t from, std::ptrdiff_t n,
                                    float& largest, bool& finite) {
  for (std::ptrdiff_t j = from; j < n; ++j) {
    const float a = std::fabs(x[j]);
    largest = a > largest ? a : largest;
    finite = finite && !std::isnan(a);
  }
}

// A zero vector, or one with a NaN or an infinity, rounds to zeros with scale 0 or NaN: returns
// true, having written them.
TTS_ISA_INLINE bool rounds_to_zeros(float largest, bool finite, std::ptrdiff_t n, std::int8_t* q,
                                    float& scale) {
  finite = finite && largest <= std::numeric_limits<float>::max();
  if (finite && largest > 0.0f) return false;
  std::memset(q, 0, static_cast<std::size_t>(int8_input_bytes(n)));
  scale = finite ? 0.0f : std::numeric_limits<float>::quiet_NaN();
  return true;
}

// Elements [from, n) rounded, then the padding.
TTS_ISA_INLINE void round_elements(const float* x, std::ptrdiff_t from, std::ptrdiff_t n,
                                   float inverse, std::int8_t* q) {
  for (std::ptrdiff_t j = from; j < n; ++j)
    q[j] = static_cast<std::int8_t>(static_cast<int>(std::nearbyint(x[j] * inverse)));
  for (std::ptrdiff_t j = n; j < int8_input_bytes(n); ++j) q[j] = 0;
}

TTS_ISA_INLINE float quantise_body(const float* x, std::ptrdiff_t n, std::int8_t* q) {
  float largest = 0.0f, scale = 0.0f;
  bool finite = true;
  scan_magnitudes(x, 0, n, largest, finite);
  if (rounds_to_zeros(largest, finite, n, q, scale)) return scale;
  round_elements(x, 0, n, float(kInputSteps) / largest, q);
  return largest / float(kInputSteps);
}

// y[r] (+)= sum[r] · row_scale[r] · s for the `rows` rows of one block.
TTS_ISA_INLINE void scale_sums(const std::int32_t* sums, const float* row_scale, float s,
                               std::ptrdiff_t rows, float* y, bool accumulate) {
  for (std::ptrdiff_t r = 0; r < rows; ++r) {
    const float value = static_cast<float>(sums[r]) * (row_scale[r] * s);
    y[r] = accumulate ? y[r] + value : value;
  }
}

// The scalar reference: one 8-row block's exact integer sums.
TTS_ISA_INLINE void block_sums(const std::int8_t* tiles, std::ptrdiff_t groups,
                               const std::int8_t* q, std::int32_t* sums) {
  for (std::ptrdiff_t r = 0; r < kInt8TileRows; ++r) sums[r] = 0;
  for (std::ptrdiff_t g = 0; g < groups; ++g) {
    const std::int8_t* tile = tiles + g * kTileBytes;
    const std::int8_t* xg = q + g * kInt8TileCols;
    for (std::ptrdiff_t r = 0; r < kInt8TileRows; ++r)
      for (std::ptrdiff_t c = 0; c < kInt8TileCols; ++c)
        sums[r] += static_cast<std::int32_t>(tile[r * kInt8TileCols + c]) * xg[c];
  }
}

// gemv_i8 (int8_gemv_kernel.h) in the scalar reference's way: block by block, each product's
// sums (of the input as it is, no offset, so the row sums are not needed) scaled into y in turn.
TTS_ISA_INLINE void i8_body(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                            bool accumulate) {
  std::int32_t sums[kInt8TileRows];
  for (std::ptrdiff_t r = 0; r < m; r += kInt8TileRows) {
    const std::ptrdiff_t rows = m - r < kInt8TileRows ? m - r : kInt8TileRows;
    for (int k = 0; k < count; ++k) {
      const Int8Product& p = products[k];
      const std::ptrdiff_t groups = column_groups(p.n);
      block_sums(p.tiles + (r / kInt8TileRows) * groups * kTileBytes, groups, p.q, sums);
      scale_sums(sums, p.row_scale + r, p.s, rows, y + r, accumulate || k > 0);
    }
  }
}

#if defined(TTS_ISA_X86)
// AVX2: kBlocks blocks of 8 rows at once, sharing each column group's broadcast input. Per tile:
// VPMADDUBSW multiplies q + 64 (unsigned, in [1, 127]) by the weights and adds neighbouring pairs
// into int16, VPMADDWD by ones adds those pairs into int32, and VPADDD accumulates; at the end
// 64 × each row's weight sum comes back out, leaving Q·q exactly.
template <int kBlocks>
TTS_TARGET_AVX2 TTS_ISA_INLINE void block_sums_avx2(const std::int8_t* tiles, std::ptrdiff_t groups,
                                                    const std::int8_t* q,
                                                    const std::int32_t* row_sums,
                                                    std::int32_t* sums) {
  __m256i acc[kBlocks];
  for (int k = 0; k < kBlocks; ++k) acc[k] = _mm256_setzero_si256();
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i offset = _mm256_set1_epi8(static_cast<char>(kInputOffset));
  for (std::ptrdiff_t g = 0; g < groups; ++g) {
    std::int32_t four;
    std::memcpy(&four, q + g * kInt8TileCols, sizeof four);
    const __m256i unsigned_x = _mm256_add_epi8(_mm256_set1_epi32(four), offset);
    for (int k = 0; k < kBlocks; ++k) {
      const __m256i w = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(tiles + (k * groups + g) * kTileBytes));
      acc[k] =
          _mm256_add_epi32(acc[k], _mm256_madd_epi16(_mm256_maddubs_epi16(unsigned_x, w), ones));
    }
  }
  for (int k = 0; k < kBlocks; ++k) {
    const __m256i row_sum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row_sums + 8 * k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + 8 * k),
                        _mm256_sub_epi32(acc[k], _mm256_slli_epi32(row_sum, 6)));
  }
}
static_assert(kInputOffset == 1 << 6, "the row sums are shifted by log2(kInputOffset)");

// quantise_body with 8 elements a register: the same scale and the same rounding (VCVTPS2DQ
// rounds to nearest, ties to even, as nearbyint does in the default mode).
TTS_TARGET_AVX2 TTS_ISA_INLINE float quantise_body_avx2(const float* x, std::ptrdiff_t n,
                                                        std::int8_t* q) {
  const __m256 magnitude_bits = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 largest8 = _mm256_setzero_ps(), unordered8 = _mm256_setzero_ps();
  std::ptrdiff_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    largest8 = _mm256_max_ps(largest8, _mm256_and_ps(v, magnitude_bits));
    unordered8 = _mm256_or_ps(unordered8, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));  // NaNs
  }
  __m128 largest4 =
      _mm_max_ps(_mm256_castps256_ps128(largest8), _mm256_extractf128_ps(largest8, 1));
  largest4 = _mm_max_ps(largest4, _mm_movehl_ps(largest4, largest4));
  largest4 = _mm_max_ss(largest4, _mm_shuffle_ps(largest4, largest4, 1));
  float largest = _mm_cvtss_f32(largest4), scale = 0.0f;
  bool finite = _mm256_movemask_ps(unordered8) == 0;
  scan_magnitudes(x, j, n, largest, finite);
  if (rounds_to_zeros(largest, finite, n, q, scale)) return scale;
  const float inverse = float(kInputSteps) / largest;
  const __m256 inverse8 = _mm256_set1_ps(inverse);
  // PACKSSDW and PACKSSWB interleave the two 128-bit halves; the permutation puts the 32 bytes back
  // in order (no value saturates: all lie in [−63, 63]).
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  j = 0;
  for (; j + 32 <= n; j += 32) {
    __m256i v[4];
    for (int k = 0; k < 4; ++k)
      v[k] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + j + 8 * k), inverse8));
    const __m256i bytes =
        _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + j),
                        _mm256_permutevar8x32_epi32(bytes, order));
  }
  round_elements(x, j, n, inverse, q);
  return largest / float(kInputSteps);
}

// gemv_i8 with AVX2: four blocks at a time, then one at a time.
TTS_TARGET_AVX2 TTS_ISA_INLINE void i8_body_avx2(const Int8Product* products, int count,
                                                 std::ptrdiff_t m, float* y, bool accumulate) {
  std::int32_t sums[4 * kInt8TileRows];
  std::ptrdiff_t r = 0;
  for (; r + 4 * kInt8TileRows <= m; r += 4 * kInt8TileRows)
    for (int k = 0; k < count; ++k) {
      const Int8Product& p = products[k];
      const std::ptrdiff_t groups = column_groups(p.n);
      block_sums_avx2<4>(p.tiles + (r / kInt8TileRows) * groups * kTileBytes, groups, p.q,
                         p.row_sums + r, sums);
      scale_sums(sums, p.row_scale + r, p.s, 4 * kInt8TileRows, y + r, accumulate || k > 0);
    }
  for (; r < m; r += kInt8TileRows) {
    const std::ptrdiff_t rows = m - r < kInt8TileRows ? m - r : kInt8TileRows;
    for (int k = 0; k < count; ++k) {
      const Int8Product& p = products[k];
      const std::ptrdiff_t groups = column_groups(p.n);
      block_sums_avx2<1>(p.tiles + (r / kInt8TileRows) * groups * kTileBytes, groups, p.q,
                         p.row_sums + r, sums);
      scale_sums(sums, p.row_scale + r, p.s, rows, y + r, accumulate || k > 0);
    }
  }
}
#endif

}  // namespace

std::size_t int8_tiles_bytes(std::ptrdiff_t m, std::ptrdiff_t n) {
  const std::ptrdiff_t blocks = (m + kInt8TileRows - 1) / kInt8TileRows;
  return static_cast<std::size_t>(blocks * column_groups(n) * kTileBytes);
}

std::size_t int8_tile_index(std::ptrdiff_t i, std::ptrdiff_t j, std::ptrdiff_t n) {
  const std::ptrdiff_t tile = (i / kInt8TileRows) * column_groups(n) + j / kInt8TileCols;
  return static_cast<std::size_t>(tile * kTileBytes + (i % kInt8TileRows) * kInt8TileCols +
                                  j % kInt8TileCols);
}

float quantise_i8_baseline(const float* x, std::ptrdiff_t n, std::int8_t* q) {
  return quantise_body(x, n, q);
}

void gemv_i8_baseline(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                      bool accumulate) {
  i8_body(products, count, m, y, accumulate);
}

#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 float quantise_i8_avx2(const float* x, std::ptrdiff_t n, std::int8_t* q) {
  return quantise_body_avx2(x, n, q);
}

TTS_TARGET_AVX2 void gemv_i8_avx2(const Int8Product* products, int count, std::ptrdiff_t m,
                                  float* y, bool accumulate) {
  i8_body_avx2(products, count, m, y, accumulate);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE float quantise_i8_sve(const float* x, std::ptrdiff_t n, std::int8_t* q) {
  return quantise_body(x, n, q);
}

TTS_TARGET_SVE void gemv_i8_sve(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                                bool accumulate) {
  i8_body(products, count, m, y, accumulate);
}
#endif

}  // namespace tts::kernels::detail
