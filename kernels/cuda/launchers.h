// Internal: host-side launchers of our own CUDA kernels, on raw device pointers (column-major,
// contiguous: leading dimension == rows). Every launcher checks the launch and runs on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "tts/kernels/ops/view.h"

namespace tts::kernels::cuda::detail {

// out[i] = bf16(in[i]) (round to nearest even), stored as raw 16-bit bf16 bit patterns.
void launch_float_to_bf16(const float* in, std::uint16_t* out, std::size_t count,
                          cudaStream_t stream);
// The same for a rows × cols matrix at column stride ld; out is contiguous (column stride rows).
void launch_float_to_bf16(const float* in, int rows, int cols, int ld, std::uint16_t* out,
                          cudaStream_t stream);
// The same to IEEE half (round to nearest even; ±inf beyond fp16's range), raw 16-bit patterns.
void launch_float_to_fp16(const float* in, std::uint16_t* out, std::size_t count,
                          cudaStream_t stream);
void launch_float_to_fp16(const float* in, int rows, int cols, int ld, std::uint16_t* out,
                          cudaStream_t stream);

// in-place fill with a deterministic pseudo-random pattern in [-scale, scale] (benchmarks).
void launch_fill_pattern(float* data, std::size_t count, float scale, cudaStream_t stream);

// WaveNet gate over `columns` columns of a 2R-row z (column stride ld_z):
// gated = tanh(filter) ⊙ sigmoid(gate), at column stride ld_gated. tanh_out and sigmoid_out
// (contiguous R × columns) may both be null (inference: nothing kept).
void launch_gate_forward(const float* z, int ld_z, int r, int columns, float* gated, int ld_gated,
                         float* tanh_out, float* sigmoid_out, cudaStream_t stream);

// dz (2R rows, column stride ld_dz) from d_gated (fp32, stride ld_d_gated) and the kept factors;
// the factors and dz in `element`'s format.
void launch_gate_backward(const float* d_gated, int ld_d_gated, const void* tanh_out,
                          const void* sigmoid_out, int r, int columns, void* dz, int ld_dz,
                          Element element, cudaStream_t stream);

// The element-wise and indexing kernels of the training step (training_kernels.cu); matrices are
// rows × cols at column stride ld. See kernels/cuda/device_ops.h for the semantics.
void launch_add_bias(float* x, int rows, int cols, int ld, const float* bias, cudaStream_t stream);
void launch_relu_forward(const float* x, int ld_x, int rows, int cols, float* y, int ld_y,
                         cudaStream_t stream);
void launch_causal_shift(const float* x, int ld_x, int rows, int cols, int shift, int length,
                         float* out, int ld_out, cudaStream_t stream);
void launch_causal_shift_backward(const float* d_out, int ld_d_out, int rows, int cols, int shift,
                                  int length, float* dx, int ld_dx, cudaStream_t stream);
void launch_add_interpolated_columns(const float* frames, int ld_frames, const std::int32_t* index,
                                     const float* weight, int rows, int cols, float* out,
                                     int ld_out, cudaStream_t stream);
void launch_embedding_lookup(const float* table, int ld_table, const std::int32_t* ids, int rows,
                             int cols, float* out, int ld_out, cudaStream_t stream);
// d_targets[:, t] += Σ_{j ∈ [offsets[t], offsets[t+1])} coefficients[j] · d_out[:, columns[j]]
// (d_out in d_out_element's format).
void launch_scatter_add(const void* d_out, int ld_d_out, Element d_out_element, int rows,
                        const std::int32_t* offsets, const std::int32_t* columns,
                        const float* coefficients, int targets, float* d_targets, int ld_targets,
                        cudaStream_t stream);
// The same by chunks (ScatterPlan::chunked, kernels/cuda/device_ops.h): partials[:, c] = the
// sum of chunk c's entries [chunk_first[c], chunk_first[c + 1]) in order, then d_targets[:, t] +=
// the sum of t's chunks' partials [target_chunks[t], target_chunks[t + 1]) in order; partials is
// scratch of rows × chunks floats.
void launch_scatter_add_chunked(const void* d_out, int ld_d_out, Element d_out_element, int rows,
                                const std::int32_t* chunk_first, int chunks,
                                const std::int32_t* target_chunks, const std::int32_t* columns,
                                const float* coefficients, int targets, float* partials,
                                float* d_targets, int ld_targets, cudaStream_t stream);

// d_frames[:, f] += Σ w[n]·d_out[:, n] over n in [first[f-1], first[f]) with w[n] ≠ 0, then
// Σ (1 - w[n])·d_out[:, n] over n in [first[f], first[f+1]) (d_out in d_out_element's format).
void launch_interpolation_backward_sorted(const void* d_out, int ld_d_out, Element d_out_element,
                                          int rows, const std::int32_t* first, const float* weight,
                                          int frames, float* d_frames, int ld_d_frames,
                                          cudaStream_t stream);

// Per column t: loss[t] = log Σ exp(l - max) - (l[target] - max) (double); when d_logits is not
// null it receives (softmax - onehot(target)) / columns, in d_logits_element's format. Targets
// must already be in range.
void launch_softmax_cross_entropy(const float* logits, const std::int32_t* targets, int classes,
                                  int columns, double* loss, void* d_logits,
                                  Element d_logits_element, cudaStream_t stream);

// The fused WaveNet passes and the 16-bit-aware element-wise kernels (wavenet_fused.cu); `element`
// is the format of the void* operand(s). Semantics in tts/kernels/ops/backend.h.
void launch_convert(const float* in, int ld_in, int rows, int cols, void* out, int ld_out,
                    Element element, cudaStream_t stream);
// h_out is written only when it is not h; with a bias it must not be h.
void launch_wavenet_layer_input(const float* h, int ld_h, const float* bias, int r, int cols,
                                int shift, int length, float* h_out, int ld_h_out, void* stacked,
                                int ld_stacked, Element element, cudaStream_t stream);
// d_in and rounded (may be null) in `element`'s format.
void launch_wavenet_layer_input_backward(const void* d_in, int ld_d_in, int r, int cols, int shift,
                                         int length, float* d_h, int ld_d_h, void* rounded,
                                         int ld_rounded, Element element, cudaStream_t stream);
// z, gated and the kept tanh and sigmoid factors (contiguous r × cols) in `element`'s format.
void launch_conditioned_gate(const void* z, int ld_z, const float* frames, int ld_frames,
                             const std::int32_t* index, const float* weight, int r, int cols,
                             void* gated, int ld_gated, Element element, void* tanh_out,
                             void* sigmoid_out, cudaStream_t stream);
// gate_backward into dz, then the sorted interpolation adjoint of dz into d_frames (as
// launch_interpolation_backward_sorted), in one pass; the kept factors and dz in `element`'s
// format.
void launch_conditioned_gate_backward(const float* d_gated, int ld_d_gated, const void* tanh_out,
                                      const void* sigmoid_out, int r, const std::int32_t* first,
                                      const float* weight, int frames, void* dz, int ld_dz,
                                      Element element, float* d_frames, int ld_d_frames,
                                      cudaStream_t stream);
void launch_bias_relu(float* x, int ld_x, const float* bias, int rows, int cols, void* y, int ld_y,
                      Element element, cudaStream_t stream);
// y and dx share `element`; dx may be dy when that is fp32.
void launch_relu_backward(const float* dy, int ld_dy, const void* y, int ld_y, int rows, int cols,
                          void* dx, int ld_dx, Element element, cudaStream_t stream);
void launch_scale(void* x, int ld, int rows, int cols, float factor, Element element,
                  cudaStream_t stream);

}  // namespace tts::kernels::cuda::detail
