// Internal: explicit instruction-set dispatch for the hot CPU kernels (the GEMVs over 32-, 16-
// and 8-bit weights, the gate and the softmax of sampling, the acoustic model's layer
// normalisation, and the FMA chains that measure peak speed). Each kernel's body is an
// always-inline template compiled into one named variant per ISA (a function with a `target`
// attribute):
//   x86-64:  avx512 (x86-64-v4), avx2 (x86-64-v3: AVX2 + FMA), baseline (x86-64, SSE2)
//   aarch64: sve (Armv8.2-A + SVE), baseline (Armv8-A, whose SIMD is NEON)
// isa.cpp holds the registry of the variants built and which of them this CPU runs, picks one at
// the first kernel call (the best the CPU runs, or $TTS_ISA) and lets tests force each in turn.
// Clang 14 knows CPU names, not GCC's x86-64 levels, so it gets the first CPU of each level
// (Skylake-AVX512 and Haswell), whose features are those of the level.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
#define TTS_ISA_X86 1
#if defined(__clang__)
#define TTS_TARGET_AVX512 __attribute__((target("arch=skylake-avx512")))
#define TTS_TARGET_AVX2 __attribute__((target("arch=haswell")))
#else
#define TTS_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define TTS_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#endif
#elif defined(__aarch64__)
#define TTS_ISA_AARCH64 1
#define TTS_TARGET_SVE __attribute__((target("arch=armv8.2-a+sve")))
#endif

// A kernel body, inlined into each variant and so compiled with that variant's instructions.
// UndefinedBehaviorSanitizer's null, alignment and pointer-overflow checks on every element access
// keep these loops from vectorising: under CI's sanitizer build a sentence took 7 times as long
// (35 s against 4.8), and the tests that speak with the bundled voice took minutes.
// AddressSanitizer still checks every access the bodies make.
#define TTS_ISA_INLINE \
  inline __attribute__((always_inline, no_sanitize("null", "alignment", "pointer-overflow")))

namespace tts::kernels::detail {

using GemvFn = void (*)(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                        const float* x, float* y, bool accumulate);
using GateFn = void (*)(const float* filter, const float* gate, float* out, float* keep_tanh,
                        float* keep_sigmoid, std::ptrdiff_t n);
using FmaChainsFn = float (*)(long iterations, float a, float b);
using SoftmaxSampleFn = int32_t (*)(const float* logits, std::ptrdiff_t n, float inv_temperature,
                                    float uniform, float* scratch);
using LayerNormColumnFn = float (*)(const float* x, std::ptrdiff_t c, const float* gamma,
                                    const float* beta, float epsilon, float* normalized, float* y);
// The GEMVs over 16-bit weights (compact_gemv_kernel.h) and in 8-bit integers
// (int8_gemv_kernel.h).
using GemvF16Fn = void (*)(const std::uint16_t* a, std::ptrdiff_t lda, std::ptrdiff_t m,
                           std::ptrdiff_t n, const float* x, float* y, bool accumulate);
using QuantiseI8Fn = float (*)(const float* x, std::ptrdiff_t n, std::int8_t* q);
// One product of the int8 GEMV (int8_gemv_kernel.h): a matrix's tiles, row scales and row sums,
// its columns, and its rounded input with the input's scale.
struct Int8Product {
  const std::int8_t* tiles;
  const float* row_scale;
  const std::int32_t* row_sums;
  std::ptrdiff_t n;
  const std::int8_t* q;
  float s;
};
using GemvI8Fn = void (*)(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                          bool accumulate);

// One variant's kernels: what every call of gemv / gate_forward(_step) / softmax_sample /
// layer_norm_forward / the peak measure runs.
struct CpuKernels {
  GemvFn gemv;
  GateFn gate;
  FmaChainsFn fma_chains;
  SoftmaxSampleFn softmax_sample;       // softmax_kernel.h
  LayerNormColumnFn layer_norm_column;  // layer_norm_kernel.h
  GemvF16Fn gemv_f16;
  QuantiseI8Fn quantise_i8;
  GemvI8Fn gemv_i8;
};

// The variant in use; null until the first call selects one (select_cpu_kernels, in isa.cpp).
extern std::atomic<const CpuKernels*> g_cpu_kernels;
const CpuKernels* select_cpu_kernels();

// One load on the hot path; the selection runs once (concurrent first calls pick the same one).
inline const CpuKernels& cpu_kernels() {
  const CpuKernels* k = g_cpu_kernels.load(std::memory_order_acquire);
  return k ? *k : *select_cpu_kernels();
}

}  // namespace tts::kernels::detail
