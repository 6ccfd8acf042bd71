// Internal: host-side launchers of our own CUDA kernels, on raw device pointers (column-major,
// contiguous: leading dimension == rows). Every launcher checks the launch and runs on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tts::kernels::cuda::detail {

// out[i] = bf16(in[i]) (round to nearest even), stored as raw 16-bit bf16 bit patterns.
void launch_float_to_bf16(const float* in, std::uint16_t* out, std::size_t count,
                          cudaStream_t stream);

// in-place fill with a deterministic pseudo-random pattern in [-scale, scale] (benchmarks).
void launch_fill_pattern(float* data, std::size_t count, float scale, cudaStream_t stream);

// WaveNet gate over `columns` columns of a 2R-row z: gated = tanh(filter) ⊙ sigmoid(gate).
// tanh_out and sigmoid_out may both be null (inference: nothing kept).
void launch_gate_forward(const float* z, int r, int columns, float* gated, float* tanh_out,
                         float* sigmoid_out, cudaStream_t stream);

// dz (2R rows) from d_gated, tanh_out, sigmoid_out (R rows each).
void launch_gate_backward(const float* d_gated, const float* tanh_out, const float* sigmoid_out,
                          int r, int columns, float* dz, cudaStream_t stream);

// Per column t: loss[t] = log Σ exp(l - max) - (l[target] - max) (double); when d_logits is not
// null it receives (softmax - onehot(target)) / columns. Targets must already be in range.
void launch_softmax_cross_entropy(const float* logits, const std::int32_t* targets, int classes,
                                  int columns, double* loss, float* d_logits, cudaStream_t stream);

// Per column t: the class drawn from softmax(logits / temperature) at uniforms[t] (arg-max when
// temperature <= 0), by the CPU's convention: the first k with uniform·Σp < Σ_{j≤k} p_j.
void launch_softmax_sample(const float* logits, const float* uniforms, int classes, int columns,
                           float temperature, std::int32_t* classes_out, cudaStream_t stream);

}  // namespace tts::kernels::cuda::detail
