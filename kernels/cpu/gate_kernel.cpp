#include "gate_kernel.h"

// GCC keeps FP exception flags exact by default (-ftrapping-math) and so will not if-convert the
// clamp in tanh_approx without AVX-512's masks: the avx2, baseline and NEON loops stayed scalar.
// Nothing here reads the flags (the values are the same either way), so GCC may ignore them.
// On aarch64 GCC 12 also fuses multiply-adds in scalar code but not in its SVE loops, and a loop
// versioned for aliasing runs short arrays in scalar code, so a value would depend on where its
// array sits: unfused arithmetic there makes every aarch64 variant round alike. (x86's AVX2 and
// AVX-512 variants fuse in their vector and scalar code alike; SSE2 has no FMA.) Clang ignores
// the flags by default, so it needs only the second, on aarch64.
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

// tanh as an odd rational minimax approximation x·P(x²)/Q(x²) on [-7.9, 7.9], beyond which tanh is
// ±1 in float. Maximum error a few ulp; plain arithmetic, so the compiler vectorises it.
TTS_ISA_INLINE float tanh_approx(float x) {
  const float limit = 7.90531110763549805f;
  x = x > limit ? limit : (x < -limit ? -limit : x);
  const float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return x * p / q;
}

// sigmoid(x) = (1 + tanh(x/2)) / 2.
TTS_ISA_INLINE float sigmoid_approx(float x) { return 0.5f + 0.5f * tanh_approx(0.5f * x); }

template <bool kKeep>
TTS_ISA_INLINE void gate_loop(const float* filter, const float* gate, float* out, float* keep_tanh,
                              float* keep_sigmoid, std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const float t = tanh_approx(filter[i]);
    const float s = sigmoid_approx(gate[i]);
    out[i] = t * s;
    if constexpr (kKeep) {
      keep_tanh[i] = t;
      keep_sigmoid[i] = s;
    }
  }
}

TTS_ISA_INLINE void gate_body(const float* filter, const float* gate, float* out, float* keep_tanh,
                              float* keep_sigmoid, std::ptrdiff_t n) {
  if (keep_tanh && keep_sigmoid)
    gate_loop<true>(filter, gate, out, keep_tanh, keep_sigmoid, n);
  else
    gate_loop<false>(filter, gate, out, nullptr, nullptr, n);
}

}  // namespace

void gated_tanh_sigmoid_baseline(const float* filter, const float* gate, float* out,
                                 float* keep_tanh, float* keep_sigmoid, std::ptrdiff_t n) {
  gate_body(filter, gate, out, keep_tanh, keep_sigmoid, n);
}

#if defined(TTS_ISA_X86)
TTS_TARGET_AVX2 void gated_tanh_sigmoid_avx2(const float* filter, const float* gate, float* out,
                                             float* keep_tanh, float* keep_sigmoid,
                                             std::ptrdiff_t n) {
  gate_body(filter, gate, out, keep_tanh, keep_sigmoid, n);
}

TTS_TARGET_AVX512 void gated_tanh_sigmoid_avx512(const float* filter, const float* gate, float* out,
                                                 float* keep_tanh, float* keep_sigmoid,
                                                 std::ptrdiff_t n) {
  gate_body(filter, gate, out, keep_tanh, keep_sigmoid, n);
}
#elif defined(TTS_ISA_AARCH64)
TTS_TARGET_SVE void gated_tanh_sigmoid_sve(const float* filter, const float* gate, float* out,
                                           float* keep_tanh, float* keep_sigmoid,
                                           std::ptrdiff_t n) {
  gate_body(filter, gate, out, keep_tanh, keep_sigmoid, n);
}
#endif

}  // namespace tts::kernels::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
