// Element-wise CUDA kernels: the WaveNet gate (forward and backward) and the bf16/fp16 conversions
// that feed the tensor-core GEMMs. Grid-stride loops over contiguous column-major matrices.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.h"
#include "element_store.cuh"
#include "gate_math.cuh"
#include "grid_stride.cuh"
#include "launchers.h"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = kElementwiseThreads;

// out (rows × cols, contiguous) = bf16(in) where in has column stride ld (== rows: contiguous).
__global__ void float_to_bf16_kernel(const float* in, int rows, int cols, int ld,
                                     std::uint16_t* out) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    out[c * rows + r] = __bfloat16_as_ushort(__float2bfloat16_rn(in[c * ld + r]));
  });
}

// The same to IEEE half. __float2half_rn rounds to nearest even and gives ±inf beyond fp16's range
// (|x| ≥ 65520): that overflow is what dynamic loss scaling detects in the gradients.
__global__ void float_to_fp16_kernel(const float* in, int rows, int cols, int ld,
                                     std::uint16_t* out) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    out[c * rows + r] = __half_as_ushort(__float2half_rn(in[c * ld + r]));
  });
}

__global__ void fill_pattern_kernel(float* data, std::size_t count, float scale) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;  // Knuth's multiplicative hash
    h ^= h >> 16;
    data[i] = scale * (static_cast<float>(h & 0xffffu) / 32767.5f - 1.0f);
  }
}

// gated (and the kept factors) at column stride ld_gated; z at column stride ld_z (≥ 2R); the
// kept tanh and sigmoid factors are contiguous R × columns.
template <bool kKeep>
__global__ void gate_forward_kernel(const float* z, int ld_z, int r, int columns, float* gated,
                                    int ld_gated, float* tanh_out, float* sigmoid_out) {
  for_each_element(r, columns, [&](int row, std::size_t column) {
    const float* zc = z + column * ld_z;
    const float t = tanhf(zc[row]);
    const float s = sigmoid(zc[r + row]);
    gated[column * ld_gated + row] = t * s;
    if constexpr (kKeep) {
      const std::size_t i = column * r + row;
      tanh_out[i] = t;
      sigmoid_out[i] = s;
    }
  });
}

template <typename T>
__global__ void gate_backward_kernel(const float* d_gated, int ld_d_gated, const T* tanh_out,
                                     const T* sigmoid_out, int r, int columns, T* dz, int ld_dz) {
  for_each_element(r, columns, [&](int row, std::size_t column) {
    const std::size_t i = column * r + row;
    const float d = d_gated[column * ld_d_gated + row], t = load(tanh_out + i),
                s = load(sigmoid_out + i);
    T* dzc = dz + column * ld_dz;
    store(dzc + row, gate_filter_adjoint(d, t, s));
    store(dzc + r + row, gate_gate_adjoint(d, t, s));
  });
}

}  // namespace

void launch_float_to_bf16(const float* in, std::uint16_t* out, std::size_t count,
                          cudaStream_t stream) {
  if (count == 0) return;
  float_to_bf16_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, 1, static_cast<int>(count),
                                                                   1, out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_float_to_bf16(const float* in, int rows, int cols, int ld, std::uint16_t* out,
                          cudaStream_t stream) {
  const std::size_t count = std::size_t(rows) * std::size_t(cols);
  if (count == 0) return;
  float_to_bf16_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, rows, cols, ld, out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_float_to_fp16(const float* in, std::uint16_t* out, std::size_t count,
                          cudaStream_t stream) {
  if (count == 0) return;
  float_to_fp16_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, 1, static_cast<int>(count),
                                                                   1, out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_float_to_fp16(const float* in, int rows, int cols, int ld, std::uint16_t* out,
                          cudaStream_t stream) {
  const std::size_t count = std::size_t(rows) * std::size_t(cols);
  if (count == 0) return;
  float_to_fp16_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, rows, cols, ld, out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_fill_pattern(float* data, std::size_t count, float scale, cudaStream_t stream) {
  if (count == 0) return;
  fill_pattern_kernel<<<blocks_for(count), kThreads, 0, stream>>>(data, count, scale);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_gate_forward(const float* z, int ld_z, int r, int columns, float* gated, int ld_gated,
                         float* tanh_out, float* sigmoid_out, cudaStream_t stream) {
  const std::size_t count = std::size_t(r) * std::size_t(columns);
  if (count == 0) return;
  if (tanh_out && sigmoid_out)
    gate_forward_kernel<true><<<blocks_for(count), kThreads, 0, stream>>>(
        z, ld_z, r, columns, gated, ld_gated, tanh_out, sigmoid_out);
  else
    gate_forward_kernel<false><<<blocks_for(count), kThreads, 0, stream>>>(
        z, ld_z, r, columns, gated, ld_gated, nullptr, nullptr);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_gate_backward(const float* d_gated, int ld_d_gated, const void* tanh_out,
                          const void* sigmoid_out, int r, int columns, void* dz, int ld_dz,
                          Element element, cudaStream_t stream) {
  const std::size_t count = std::size_t(r) * std::size_t(columns);
  if (count == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    gate_backward_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(
        d_gated, ld_d_gated, static_cast<const T*>(tanh_out), static_cast<const T*>(sigmoid_out), r,
        columns, static_cast<T*>(dz), ld_dz);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace tts::kernels::cuda::detail
