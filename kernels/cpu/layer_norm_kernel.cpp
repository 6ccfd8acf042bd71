#include "layer_norm_kernel.h"

#include <cmath>

#include "lane_sum.h"

namespace tts::kernels::detail {

namespace {

TTS_ISA_INLINE float layer_norm_column_body(const float* x, std::ptrdiff_t c, const float* gamma,
                                            const float* beta, float epsilon, float* normalized,
                                            float* y) {
  // Three passes over the column, which sits in L1: the mean, the variance, then both outputs
  // written once (the decoder's columns are 256 channels; its 256 × 229 matrices do not fit in L1).
  const float mean = lane_sum(x, c) / static_cast<float>(c);
  const float variance = lane_sum_of_squares(x, mean, c) / static_cast<float>(c);
  const float inv_std = 1.0f / std::sqrt(variance + epsilon);
  for (std::ptrdiff_t i = 0; i < c; ++i) {
    const float n = (x[i] - mean) * inv_std;
    normalized[i] = n;
    y[i] = n * gamma[i] + beta[i];
  }
  return inv_std;
}

}  // namespace

float layer_norm_column_baseline(const float* x, std::ptrdiff_t c, const float* gamma,
                                 const float* beta, float epsilon, float* normalized, float* y) {
  return layer_norm_column_body(x, c, gamma, beta, epsilon, normalized, y);
}

#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 float layer_norm_column_avx2(const float* x, std::ptrdiff_t c, const float* gamma,
                                             const float* beta, float epsilon, float* normalized,
                                             float* y) {
  return layer_norm_column_body(x, c, gamma, beta, epsilon, normalized, y);
}

TTS_TARGET_AVX512 float layer_norm_column_avx512(const float* x, std::ptrdiff_t c,
                                                 const float* gamma, const float* beta,
                                                 float epsilon, float* normalized, float* y) {
  return layer_norm_column_body(x, c, gamma, beta, epsilon, normalized, y);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE float layer_norm_column_sve(const float* x, std::ptrdiff_t c, const float* gamma,
                                           const float* beta, float epsilon, float* normalized,
                                           float* y) {
  return layer_norm_column_body(x, c, gamma, beta, epsilon, normalized, y);
}
#endif

}  // namespace tts::kernels::detail
