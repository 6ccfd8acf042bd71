#include "tts/kernels/peak_flops.h"

#include <algorithm>
#include <chrono>

#include "isa.h"

namespace tts::kernels {

namespace detail {

namespace {

// 256 independent multiply-add chains: enough vector registers' worth to hide FMA latency on
// every x86 core, all in registers. Returns a value so the work cannot be optimised away.
TTS_ISA_INLINE float fma_chains_body(long iterations, float a, float b) {
  float acc[256];
  for (int k = 0; k < 256; ++k) acc[k] = static_cast<float>(k) * 1e-3f;
  for (long i = 0; i < iterations; ++i)
    for (int k = 0; k < 256; ++k) acc[k] = acc[k] * a + b;
  float sum = 0.0f;
  for (int k = 0; k < 256; ++k) sum += acc[k];
  return sum;
}

}  // namespace

// The variants isa.cpp's registry names (the peak of the ISA the kernels run in).
float fma_chains_baseline(long iterations, float a, float b) {
  return fma_chains_body(iterations, a, b);
}
#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 float fma_chains_avx2(long iterations, float a, float b) {
  return fma_chains_body(iterations, a, b);
}
TTS_TARGET_AVX512 float fma_chains_avx512(long iterations, float a, float b) {
  return fma_chains_body(iterations, a, b);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE float fma_chains_sve(long iterations, float a, float b) {
  return fma_chains_body(iterations, a, b);
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
