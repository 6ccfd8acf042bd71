// Internal: host-side launchers of the acoustic model's CUDA kernels (acoustic_kernels.cu), on raw
// device pointers; matrices are rows × columns at column stride ld. Semantics in
// kernels/cuda/acoustic_ops.h. Every launcher checks the launch and runs on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tts::kernels::cuda::detail {

// `bounds` holds [begin, end) of each column's utterance: 2 · columns int32s.
void launch_conv1d_unfold(const float* x, int ld_x, int channels, int columns, int kernel_size,
                          const std::int32_t* bounds, float* unfolded, int ld_unfolded,
                          cudaStream_t stream);
void launch_conv1d_unfold_backward(const float* d_unfolded, int ld_d_unfolded, int channels,
                                   int columns, int kernel_size, const std::int32_t* bounds,
                                   float* dx, int ld_dx, cudaStream_t stream);
void launch_layer_norm_forward(const float* x, int ld_x, int channels, int columns,
                               const float* gamma, const float* beta, float epsilon,
                               float* normalized, int ld_normalized, float* inv_std, float* y,
                               int ld_y, cudaStream_t stream);
void launch_layer_norm_backward(const float* dy, int ld_dy, const float* normalized,
                                int ld_normalized, const float* inv_std, const float* gamma,
                                int channels, int columns, float* dx, int ld_dx,
                                cudaStream_t stream);
void launch_dropout_mask(int rows, int columns, float rate, std::uint64_t seed, float* keep,
                         int ld_keep, cudaStream_t stream);
void launch_multiply(const float* a, int ld_a, const float* b, int ld_b, int rows, int columns,
                     float* out, int ld_out, cudaStream_t stream);
void launch_add(const float* x, int ld_x, int rows, int columns, float* y, int ld_y,
                cudaStream_t stream);
// d_prediction = gradient_scale · (l1 ? sign(p - t) : p - t); column_loss[c] = Σ_r |p - t| or
// (p - t)² in double.
void launch_regression_loss(const float* prediction, int ld_prediction, const float* target,
                            int ld_target, int rows, int columns, bool l1, float gradient_scale,
                            float* d_prediction, int ld_d_prediction, double* column_loss,
                            cudaStream_t stream);

}  // namespace tts::kernels::cuda::detail
