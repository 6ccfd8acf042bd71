// Loads and stores of the three element formats a view may have (tts/kernels/ops/view.h), for
// kernels templated on their output's format, and the host-side switch from a view's Element to
// that template argument.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>

#include "tts/kernels/ops/view.h"

namespace tts::kernels::cuda::detail {

// Round to nearest even into T (fp16: ±inf beyond its range, which loss scaling detects).
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ float load(const __half* p) { return __half2float(*p); }

// Calls f(T{}) with T the C++ type of `element`.
template <typename F>
void with_element_type(Element element, F f) {
  switch (element) {
    case Element::kFloat32:
      f(float{});
      return;
    case Element::kBfloat16:
      f(__nv_bfloat16{});
      return;
    case Element::kFloat16:
      f(__half{});
      return;
  }
  throw std::invalid_argument("cuda: unknown element format");
}

}  // namespace tts::kernels::cuda::detail
