#include "softmax_kernel.h"

#include <cstring>

#include "lane_sum.h"

// As in gate_kernel.cpp: GCC keeps FP exception flags exact by default and so will not if-convert
// the clamps and selects below (the loops would stay scalar); nothing reads the flags. On aarch64
// unfused arithmetic makes the vector and scalar code round alike.
#if defined(__aarch64__) && defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__aarch64__)
#pragma GCC push_options  // popped at the end: a unity build's next files keep their options
#pragma GCC optimize("no-trapping-math", "fp-contract=off")
#elif defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif

namespace tts::kernels::detail {

namespace {

// exp(x) = 2^n · exp(r) with n = round(x / ln 2) and |r| ≤ ln 2 / 2, exp(r) by Cephes' expf
// polynomial (about 1 ulp). Plain arithmetic, so the compiler vectorises it: floor by truncation
// and an integer correction (SSE2 has no rounding instruction), 2^n by writing the exponent field,
// and 0 where 2^n is under float's normal range (x below about −87.3). Only integer selects after
// the clamp: with a float select there GCC keeps the AVX2 and AVX-512 loops scalar.
TTS_ISA_INLINE float softmax_exp(float x) {
  // A NaN compares false, so it takes the lower clamp and probability 0 (and the conversion below
  // stays defined).
  const float clamped = x >= -104.0f ? (x > 88.0f ? 88.0f : x) : -104.0f;
  const float z = clamped * 1.44269504088896341f + 0.5f;
  const int32_t truncated = static_cast<int32_t>(z);
  const int32_t n = truncated - (static_cast<float>(truncated) > z ? 1 : 0);
  const float fn = static_cast<float>(n);
  float r = clamped - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * (r * r) + r + 1.0f;
  const int32_t bits = n < -126 ? 0 : (n + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return e * scale;
}

TTS_ISA_INLINE int32_t softmax_sample_body(const float* logits, std::ptrdiff_t n,
                                           float inv_temperature, float uniform, float* scratch) {
  const float max = lane_max(logits, n);
  for (std::ptrdiff_t i = 0; i < n; ++i)
    scratch[i] = softmax_exp((logits[i] - max) * inv_temperature);
  const float target = uniform * lane_sum(scratch, n);
  // Inverse CDF by a linear scan: the classes are few (256) and the scan is branch-predictable.
  float cumulative = 0.0f;
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    cumulative += scratch[k];
    if (target < cumulative) return static_cast<int32_t>(k);
  }
  // Rounding can leave target ≥ the running sum: the last class with non-zero probability.
  for (std::ptrdiff_t k = n - 1; k > 0; --k)
    if (scratch[k] > 0.0f) return static_cast<int32_t>(k);
  return 0;
}

}  // namespace

int32_t softmax_sample_baseline(const float* logits, std::ptrdiff_t n, float inv_temperature,
                                float uniform, float* scratch) {
  return softmax_sample_body(logits, n, inv_temperature, uniform, scratch);
}

#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 int32_t softmax_sample_avx2(const float* logits, std::ptrdiff_t n,
                                            float inv_temperature, float uniform, float* scratch) {
  return softmax_sample_body(logits, n, inv_temperature, uniform, scratch);
}

TTS_TARGET_AVX512 int32_t softmax_sample_avx512(const float* logits, std::ptrdiff_t n,
                                                float inv_temperature, float uniform,
                                                float* scratch) {
  return softmax_sample_body(logits, n, inv_temperature, uniform, scratch);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE int32_t softmax_sample_sve(const float* logits, std::ptrdiff_t n,
                                          float inv_temperature, float uniform, float* scratch) {
  return softmax_sample_body(logits, n, inv_temperature, uniform, scratch);
}
#endif

}  // namespace tts::kernels::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
