// The kernels the acoustic model's training step adds to the WaveNet's (training_kernels.cu):
// convolution unfolding within packed utterances, layer normalisation, dropout, element-wise
// products and sums, and the regression losses (semantics in kernels/cuda/acoustic_ops.h; the
// CPU versions are kernels/cpu/conv1d.cpp, normalization.cpp, dropout.cpp, losses.cpp). As there,
// nothing adds atomically: every sum runs in a fixed order, so every run gives the same bits.
#include <cstddef>
#include <cstdint>

#include "acoustic_launchers.h"
#include "cuda_check.h"
#include "grid_stride.cuh"
#include "tts/kernels/dropout_hash.h"
#include "warp_softmax.cuh"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = kElementwiseThreads;

// Row block k of `unfolded` is x shifted by k - K/2 within the column's utterance
// [bounds[2n], bounds[2n + 1]), zero outside it.
__global__ void conv1d_unfold_kernel(const float* x, int ld_x, int channels, int columns,
                                     int kernel_size, const std::int32_t* bounds, float* unfolded,
                                     int ld_unfolded) {
  for_each_element(kernel_size * channels, columns, [&](int r, std::size_t n) {
    const int k = r / channels, c = r % channels;
    const long t = static_cast<long>(n) + k - kernel_size / 2;
    const bool inside = t >= bounds[2 * n] && t < bounds[2 * n + 1];
    unfolded[n * ld_unfolded + r] = inside ? x[std::size_t(t) * ld_x + c] : 0.0f;
  });
}

// The adjoint: dx[c, s] += Σ_k d_unfolded[k·C + c, s - k + K/2] over the taps whose output column
// lies in s's utterance, in increasing k (the CPU's order).
__global__ void conv1d_unfold_backward_kernel(const float* d_unfolded, int ld_d_unfolded,
                                              int channels, int columns, int kernel_size,
                                              const std::int32_t* bounds, float* dx, int ld_dx) {
  for_each_element(channels, columns, [&](int c, std::size_t s) {
    float sum = dx[s * ld_dx + c];
    for (int k = 0; k < kernel_size; ++k) {
      const long n = static_cast<long>(s) - k + kernel_size / 2;
      if (n >= bounds[2 * s] && n < bounds[2 * s + 1])
        sum += d_unfolded[std::size_t(n) * ld_d_unfolded + std::size_t(k) * channels + c];
    }
    dx[s * ld_dx + c] = sum;
  });
}

// Calls f(column, lane) for every column, one warp per column (warps stride over the columns
// when the grid has fewer), so a whole warp reduces over one column's rows.
template <typename F>
__device__ __forceinline__ void for_each_column_by_warp(int columns, F f) {
  const std::size_t first = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / kWarp;
  const std::size_t warps = std::size_t{gridDim.x} * blockDim.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  for (std::size_t column = first; column < std::size_t(columns); column += warps)
    f(column, lane);  // the whole warp runs the same columns
}

// Every lane owns the same rows in all three passes, so y may be x.
__global__ void layer_norm_forward_kernel(const float* x, int ld_x, int channels, int columns,
                                          const float* gamma, const float* beta, float epsilon,
                                          float* normalized, int ld_normalized, float* inv_std,
                                          float* y, int ld_y) {
  for_each_column_by_warp(columns, [&](std::size_t column, int lane) {
    const float* xc = x + column * ld_x;
    float sum = 0.0f;
    for (int r = lane; r < channels; r += kWarp) sum += xc[r];
    const float mean = warp_sum(sum) / static_cast<float>(channels);
    float squares = 0.0f;
    for (int r = lane; r < channels; r += kWarp) {
      const float centred = xc[r] - mean;
      squares += centred * centred;
    }
    const float inv = 1.0f / sqrtf(warp_sum(squares) / static_cast<float>(channels) + epsilon);
    float* nc = normalized + column * ld_normalized;
    float* yc = y + column * ld_y;
    for (int r = lane; r < channels; r += kWarp) {
      const float n = (xc[r] - mean) * inv;
      nc[r] = n;
      yc[r] = n * gamma[r] + beta[r];
    }
    if (lane == 0) inv_std[column] = inv;
  });
}

// dx = inv_std · (g - mean(g) - x̂ · mean(g ⊙ x̂)) with g = dy ⊙ γ.
__global__ void layer_norm_backward_kernel(const float* dy, int ld_dy, const float* normalized,
                                           int ld_normalized, const float* inv_std,
                                           const float* gamma, int channels, int columns, float* dx,
                                           int ld_dx) {
  for_each_column_by_warp(columns, [&](std::size_t column, int lane) {
    const float* dyc = dy + column * ld_dy;
    const float* nc = normalized + column * ld_normalized;
    float sum_g = 0.0f, sum_gx = 0.0f;
    for (int r = lane; r < channels; r += kWarp) {
      const float g = dyc[r] * gamma[r];
      sum_g += g;
      sum_gx += g * nc[r];
    }
    const float inv_c = 1.0f / static_cast<float>(channels);
    const float mean_g = warp_sum(sum_g) * inv_c, mean_gx = warp_sum(sum_gx) * inv_c;
    const float inv = inv_std[column];
    float* dxc = dx + column * ld_dx;
    for (int r = lane; r < channels; r += kWarp)
      dxc[r] = inv * (dyc[r] * gamma[r] - mean_g - nc[r] * mean_gx);
  });
}

__global__ void dropout_mask_kernel(int rows, int columns, float rate, float scale,
                                    std::uint64_t stream, float* keep, int ld_keep) {
  for_each_element(rows, columns, [&](int r, std::size_t c) {
    keep[c * ld_keep + r] = dropout_keep(stream, c * std::uint64_t(rows) + r, rate, scale);
  });
}

__global__ void multiply_kernel(const float* a, int ld_a, const float* b, int ld_b, int rows,
                                int columns, float* out, int ld_out) {
  for_each_element(rows, columns, [&](int r, std::size_t c) {
    out[c * ld_out + r] = a[c * ld_a + r] * b[c * ld_b + r];
  });
}

__global__ void add_kernel(const float* x, int ld_x, int rows, int columns, float* y, int ld_y) {
  for_each_element(rows, columns,
                   [&](int r, std::size_t c) { y[c * ld_y + r] += x[c * ld_x + r]; });
}

// One thread per column: the gradient of each element and the column's sum of |d| or d², in
// double, in row order. The host adds the columns in order.
__global__ void regression_loss_kernel(const float* prediction, int ld_prediction,
                                       const float* target, int ld_target, int rows, int columns,
                                       bool l1, float gradient_scale, float* d_prediction,
                                       int ld_d_prediction, double* column_loss) {
  for (std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; c < std::size_t(columns);
       c += std::size_t{gridDim.x} * blockDim.x) {
    double sum = 0.0;
    for (int r = 0; r < rows; ++r) {
      const float d = prediction[c * ld_prediction + r] - target[c * ld_target + r];
      sum += l1 ? fabs(static_cast<double>(d)) : static_cast<double>(d) * d;
      const float sign = d > 0.0f ? 1.0f : (d < 0.0f ? -1.0f : 0.0f);
      d_prediction[c * ld_d_prediction + r] = l1 ? sign * gradient_scale : d * gradient_scale;
    }
    column_loss[c] = sum;
  }
}

unsigned warp_blocks(int columns) { return blocks_for(std::size_t(columns) * kWarp); }

}  // namespace

void launch_conv1d_unfold(const float* x, int ld_x, int channels, int columns, int kernel_size,
                          const std::int32_t* bounds, float* unfolded, int ld_unfolded,
                          cudaStream_t stream) {
  if (channels == 0 || columns == 0) return;
  conv1d_unfold_kernel<<<element_blocks(kernel_size * channels, columns), kThreads, 0, stream>>>(
      x, ld_x, channels, columns, kernel_size, bounds, unfolded, ld_unfolded);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_conv1d_unfold_backward(const float* d_unfolded, int ld_d_unfolded, int channels,
                                   int columns, int kernel_size, const std::int32_t* bounds,
                                   float* dx, int ld_dx, cudaStream_t stream) {
  if (channels == 0 || columns == 0) return;
  conv1d_unfold_backward_kernel<<<element_blocks(channels, columns), kThreads, 0, stream>>>(
      d_unfolded, ld_d_unfolded, channels, columns, kernel_size, bounds, dx, ld_dx);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_layer_norm_forward(const float* x, int ld_x, int channels, int columns,
                               const float* gamma, const float* beta, float epsilon,
                               float* normalized, int ld_normalized, float* inv_std, float* y,
                               int ld_y, cudaStream_t stream) {
  if (channels == 0 || columns == 0) return;
  layer_norm_forward_kernel<<<warp_blocks(columns), kThreads, 0, stream>>>(
      x, ld_x, channels, columns, gamma, beta, epsilon, normalized, ld_normalized, inv_std, y,
      ld_y);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_layer_norm_backward(const float* dy, int ld_dy, const float* normalized,
                                int ld_normalized, const float* inv_std, const float* gamma,
                                int channels, int columns, float* dx, int ld_dx,
                                cudaStream_t stream) {
  if (channels == 0 || columns == 0) return;
  layer_norm_backward_kernel<<<warp_blocks(columns), kThreads, 0, stream>>>(
      dy, ld_dy, normalized, ld_normalized, inv_std, gamma, channels, columns, dx, ld_dx);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_dropout_mask(int rows, int columns, float rate, std::uint64_t seed, float* keep,
                         int ld_keep, cudaStream_t stream) {
  if (rows == 0 || columns == 0) return;
  dropout_mask_kernel<<<element_blocks(rows, columns), kThreads, 0, stream>>>(
      rows, columns, rate, 1.0f / (1.0f - rate), dropout_mix(seed), keep, ld_keep);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_multiply(const float* a, int ld_a, const float* b, int ld_b, int rows, int columns,
                     float* out, int ld_out, cudaStream_t stream) {
  if (rows == 0 || columns == 0) return;
  multiply_kernel<<<element_blocks(rows, columns), kThreads, 0, stream>>>(a, ld_a, b, ld_b, rows,
                                                                          columns, out, ld_out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_add(const float* x, int ld_x, int rows, int columns, float* y, int ld_y,
                cudaStream_t stream) {
  if (rows == 0 || columns == 0) return;
  add_kernel<<<element_blocks(rows, columns), kThreads, 0, stream>>>(x, ld_x, rows, columns, y,
                                                                     ld_y);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_regression_loss(const float* prediction, int ld_prediction, const float* target,
                            int ld_target, int rows, int columns, bool l1, float gradient_scale,
                            float* d_prediction, int ld_d_prediction, double* column_loss,
                            cudaStream_t stream) {
  if (rows == 0 || columns == 0) return;
  regression_loss_kernel<<<blocks_for(std::size_t(columns)), kThreads, 0, stream>>>(
      prediction, ld_prediction, target, ld_target, rows, columns, l1, gradient_scale, d_prediction,
      ld_d_prediction, column_loss);
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace tts::kernels::cuda::detail
