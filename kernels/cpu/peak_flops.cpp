#include "tts/kernels/peak_flops.h"

#include <algorithm>
#include <chrono>

#include "isa.h"

namespace tts::kernels {

namespace detail {

namespace {

// kChains independent multiply-add chains, as many as the variant's vector registers hold with a
// few to spare (more would be spilled to memory, and the loop would time its loads and stores,
// about half the FMA rate), and enough to hide the FMA latency on every core the variant runs on.
// Runs iterations × 256 multiply-adds (to within one round of kChains) and returns a value so the
// work cannot be optimised away.
template <int kChains>
TTS_ISA_INLINE float fma_chains_body(long iterations, float a, float b) {
  float acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = static_cast<float>(k) * 1e-3f;
  const long rounds = iterations * 256 / kChains;
  for (long i = 0; i < rounds; ++i) {
#pragma GCC unroll 512
    for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * a + b;
  }
  float sum = 0.0f;
  for (int k = 0; k < kChains; ++k) sum += acc[k];
  return sum;
}

}  // namespace

// The variants isa.cpp's registry names (the peak of the ISA the kernels run in).
// Twelve of the 16 SSE2 (or 32 NEON) registers of 4 floats.
float fma_chains_baseline(long iterations, float a, float b) {
  return fma_chains_body<48>(iterations, a, b);
}
#if defined(TTS_ISA_X86)
// Twelve of the 16 AVX2 registers of 8 floats; 24 of the 32 AVX-512 registers of 16.
TTS_TARGET_AVX2 float fma_chains_avx2(long iterations, float a, float b) {
  return fma_chains_body<96>(iterations, a, b);
}
TTS_TARGET_AVX512 float fma_chains_avx512(long iterations, float a, float b) {
  return fma_chains_body<384>(iterations, a, b);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE float fma_chains_sve(long iterations, float a, float b) {
  return fma_chains_body<96>(iterations, a, b);
}
#endif

}  // namespace detail

double measure_peak_gflops(double seconds) {
  using Clock = std::chrono::steady_clock;
  volatile float a = 0.999f, b = 1e-4f, sink = 0.0f;
  long iterations = 1 << 14;
  double best = 0.0, spent = 0.0;
  while (spent < seconds) {
    const auto start = Clock::now();
    sink = sink + detail::cpu_kernels().fma_chains(iterations, a, b);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    spent += elapsed;
    if (elapsed > 0)
      best = std::max(best, 2.0 * 256.0 * static_cast<double>(iterations) / elapsed / 1e9);
    if (elapsed < 0.02) iterations *= 2;
  }
  return best;
}

}  // namespace tts::kernels
