#include "gemv_kernel.h"

#include "isa_clones.h"

namespace tts::kernels::detail {

namespace {

// One block of `kRows` output rows: the accumulators stay in vector registers while the columns
// of A stream past, so each weight is loaded once and used in one fused multiply-add.
template <int kRows>
inline void gemv_block(const float* a, std::ptrdiff_t lda, std::ptrdiff_t n, const float* x,
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

}  // namespace

TTS_ISA_CLONES void gemv_column_major(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                                      std::ptrdiff_t n, const float* x, float* y, bool accumulate) {
  std::ptrdiff_t r = 0;
  for (; r + 64 <= m; r += 64) gemv_block<64>(a + r, lda, n, x, y + r, accumulate);
  for (; r + 16 <= m; r += 16) gemv_block<16>(a + r, lda, n, x, y + r, accumulate);
  for (; r < m; ++r) gemv_block<1>(a + r, lda, n, x, y + r, accumulate);
}

const char* gemv_isa() {
  // Feature by feature rather than GCC's "x86-64-v4" level names, which Clang's builtin lacks.
  __builtin_cpu_init();
  const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "x86-64-v4 (AVX-512)";
  if (v3) return "x86-64-v3 (AVX2, FMA)";
  return "baseline";
}

}  // namespace tts::kernels::detail
