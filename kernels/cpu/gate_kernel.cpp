#include "gate_kernel.h"

#include "isa_clones.h"

namespace tts::kernels::detail {

namespace {

// tanh as an odd rational minimax approximation x·P(x²)/Q(x²) on [-7.9, 7.9], beyond which tanh is
// ±1 in float. Maximum error a few ulp; plain arithmetic, so the compiler vectorises it.
inline float tanh_approx(float x) {
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
inline float sigmoid_approx(float x) { return 0.5f + 0.5f * tanh_approx(0.5f * x); }

template <bool kKeep>
inline void gate_loop(const float* filter, const float* gate, float* out, float* keep_tanh,
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

}  // namespace

TTS_ISA_CLONES void gated_tanh_sigmoid(const float* filter, const float* gate, float* out,
                                       float* keep_tanh, float* keep_sigmoid, std::ptrdiff_t n) {
  if (keep_tanh && keep_sigmoid)
    gate_loop<true>(filter, gate, out, keep_tanh, keep_sigmoid, n);
  else
    gate_loop<false>(filter, gate, out, nullptr, nullptr, n);
}

}  // namespace tts::kernels::detail
