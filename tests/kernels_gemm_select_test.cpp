// The OpenBLAS kernels tts_kernels leaves GEMM with: never a pre-AVX fallback where the
// CPU has AVX2 and FMA, unless the user chose one with OPENBLAS_CORETYPE, and GEMM still right.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tts/kernels/linear_algebra.h"

namespace {

TEST(GemmKernels, NoBaselineFallbackOnACpuWithAvx2) {
  const char* from = nullptr;
  const std::string name = tts::kernels::gemm_kernels(&from);
  ASSERT_FALSE(name.empty());
  ASSERT_NE(from, nullptr);
  if (*from) {
    EXPECT_NE(name, from);  // switched: to something else
  }
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2 && !std::getenv("OPENBLAS_CORETYPE")) {
    for (const char* baseline : {"Prescott", "Core2", "Penryn", "Nehalem", "Sandybridge"})
      EXPECT_NE(name, baseline);
  }
#else
  EXPECT_STREQ(from, "");  // only x86 builds switch OpenBLAS's kernels
#endif
}

TEST(GemmKernels, GemmAgreesWithTheNaiveProduct) {
  // Shapes of the acoustic decoder and the vocoder's conditioning, odd and even column counts.
  for (auto [m, k, n] : {std::array<int, 3>{256, 1280, 251}, {1280, 80, 2}, {80, 256, 33}}) {
    tts::kernels::Matrix a(m, k), b(k, n), c(m, n);
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < m; ++i) a(i, j) = static_cast<float>(((i * 7 + j * 13) % 17) - 8) / 8.0f;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < k; ++i) b(i, j) = static_cast<float>(((i * 5 + j * 3) % 11) - 5) / 4.0f;
    tts::kernels::gemm(c, a, tts::kernels::Transpose::kNo, b, tts::kernels::Transpose::kNo);
    double worst = 0.0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int l = 0; l < k; ++l) s += static_cast<double>(a(i, l)) * b(l, j);
        worst = std::max(worst, std::abs(s - c(i, j)));
      }
    EXPECT_LT(worst, 1e-3) << m << " x " << k << " x " << n;
  }
}

}  // namespace
