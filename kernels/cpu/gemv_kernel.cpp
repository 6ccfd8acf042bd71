#include "gemv_kernel.h"

namespace tts::kernels::detail {

namespace {

// One block of `kRows` output rows: the accumulators stay in vector registers while the columns
// of A stream past, so each weight is loaded once and used in one fused multiply-add.
template <int kRows>
TTS_ISA_INLINE void gemv_block(const float* a, std::ptrdiff_t lda, std::ptrdiff_t n, const float* x,
                               float* y, bool accumulate) {
  float acc[kRows];
  for (int k = 0; k < kRows; ++k) acc[k] = accumulate ? y[k] : 0.0f;
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    const float xj = x[j];
    const float* column = a + j * lda;
    for (int k = 0; k < kRows; ++k) acc[k] += column[k] * xj;
  }
  for (int k = 0; k < kRows; ++k) y[k] = acc[k];
}

TTS_ISA_INLINE void gemv_body(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                              std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  std::ptrdiff_t r = 0;
  for (; r + 64 <= m; r += 64) gemv_block<64>(a + r, lda, n, x, y + r, accumulate);
  for (; r + 16 <= m; r += 16) gemv_block<16>(a + r, lda, n, x, y + r, accumulate);
  for (; r < m; ++r) gemv_block<1>(a + r, lda, n, x, y + r, accumulate);
}

}  // namespace

void gemv_column_major_baseline(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  gemv_body(a, lda, m, n, x, y, accumulate);
}

#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 void gemv_column_major_avx2(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                            std::ptrdiff_t n, const float* x, float* y,
                                            bool accumulate) {
  gemv_body(a, lda, m, n, x, y, accumulate);
}

TTS_TARGET_AVX512 void gemv_column_major_avx512(const float* a, std::ptrdiff_t lda,
                                                std::ptrdiff_t m, std::ptrdiff_t n, const float* x,
                                                float* y, bool accumulate) {
  gemv_body(a, lda, m, n, x, y, accumulate);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE void gemv_column_major_sve(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                          std::ptrdiff_t n, const float* x, float* y,
                                          bool accumulate) {
  gemv_body(a, lda, m, n, x, y, accumulate);
}
#endif

}  // namespace tts::kernels::detail
