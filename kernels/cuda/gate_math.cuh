// The WaveNet gate's arithmetic, shared by every kernel that computes it (the gate and its adjoint
// in elementwise.cu, the fused passes in wavenet_fused.cu), so that a fused kernel evaluates the
// same expressions as the unfused ones and gives their bits.
#pragma once

#include "element_store.cuh"

namespace tts::kernels::cuda::detail {

// The CPU uses its own rational approximations; here the CUDA math library's tanhf/expf. The two
// agree to a few ulp, which the parity tests bound with a normalised error.
__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// The gate's adjoint for one element: d_gated d and the kept factors t = tanh(filter),
// s = sigmoid(gate) give d_filter = d·s·(1 − t²) and d_gate = d·t·s·(1 − s).
__device__ __forceinline__ float gate_filter_adjoint(float d, float t, float s) {
  return d * s * (1.0f - t * t);
}
__device__ __forceinline__ float gate_gate_adjoint(float d, float t, float s) {
  return d * t * s * (1.0f - s);
}

// v as an element of T holds it: rounded to nearest even and read back (v itself for fp32).
template <typename T>
__device__ __forceinline__ float as_stored(float v) {
  T held;
  store(&held, v);
  return load(&held);
}

}  // namespace tts::kernels::cuda::detail
