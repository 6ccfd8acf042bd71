// The kernels of a WaveNet training step on device-resident operands (tts/kernels/cuda/
// device_tensor.h): each mirrors the CPU kernel of the same name (linear_algebra.h,
// activations.h, sequence.h, softmax.h) with the same shapes and semantics, so that a model's
// CPU pass and its CUDA pass are the same sequence of calls (vocoder/teacher_forced.cpp and
// vocoder/cuda_teacher_forced.cpp). Unlike tts/kernels/cuda/kernels.h nothing is copied to or
// from the host: the calls queue work on the default stream and return; only
// softmax_cross_entropy waits, for its loss.
//
// Inputs are DeviceViews too (a view does not carry constness). Index vectors (ids, frame
// positions, targets) are device arrays, already checked by the caller (the model checks its batch
// on the host before uploading it). Shape mismatches throw std::invalid_argument naming the
// operation; CUDA and cuBLAS failures std::runtime_error.
#pragma once

#include <cstdint>

#include "tts/kernels/cuda/device_tensor.h"
#include "tts/kernels/cuda/kernels.h"
#include "tts/kernels/linear_algebra.h"

namespace tts::kernels::cuda {

// c = alpha · op(a) · op(b) + beta · c through cuBLAS. kBf16 rounds a and b to bf16 into scratch
// memory first (fp32 accumulation and output, tensor cores); kFp32 is fp32 throughout, no TF32.
void gemm(DeviceView c, DeviceView a, Transpose transpose_a, DeviceView b, Transpose transpose_b,
          float alpha = 1.0f, float beta = 0.0f, GemmPrecision precision = GemmPrecision::kFp32);

// x[:, n] += bias (bias: rows × 1).
void add_bias(DeviceView x, DeviceView bias);
// out += the sum of each row of x (out: rows × 1). Deterministic: one block per row.
void accumulate_row_sums(DeviceView out, DeviceView x);

// y = max(x, 0) (y may be x); dx = dy where y > 0, else 0 (dx may be dy).
void relu_forward(DeviceView x, DeviceView y);
void relu_backward(DeviceView dy, DeviceView y, DeviceView dx);

// The WaveNet gate: z has 2R rows (filter, then gate); gated = tanh(filter) ⊙ sigmoid(gate), and
// the two factors are kept for the backward pass. dz (2R rows) from d_gated.
void gate_forward(DeviceView z, DeviceView gated, DeviceView tanh_out, DeviceView sigmoid_out);
void gate_backward(DeviceView d_gated, DeviceView tanh_out, DeviceView sigmoid_out, DeviceView dz);

// out[:, s·T + t] = x[:, s·T + t - shift] for t ≥ shift, else 0 (T = cols / segments); and its
// adjoint, dx[:, s·T + t] += d_out[:, s·T + t + shift] for t + shift < T.
void causal_shift(DeviceView x, int shift, int segments, DeviceView out);
void causal_shift_backward(DeviceView d_out, int shift, int segments, DeviceView dx);

// out[:, n] += (1 - w[n])·frames[:, i[n]] + w[n]·frames[:, i[n] + 1]; and d_frames += its adjoint
// applied to d_out (atomic adds: the order of the sums, and so the last bits, vary from run to
// run).
void add_interpolated_columns(DeviceView frames, const DeviceArray<std::int32_t>& index,
                              const DeviceArray<float>& weight, DeviceView out);
void add_interpolated_columns_backward(DeviceView d_out, const DeviceArray<std::int32_t>& index,
                                       const DeviceArray<float>& weight, DeviceView d_frames);

// out[:, n] = table[:, ids[n]]; d_table[:, ids[n]] += d_out[:, n] (atomic adds, as above).
void embedding_lookup(DeviceView table, const DeviceArray<std::int32_t>& ids, DeviceView out);
void embedding_backward(DeviceView d_out, const DeviceArray<std::int32_t>& ids, DeviceView d_table);

// The mean over columns of -log softmax(logits)[target], and when d_logits has data its gradient
// (softmax - onehot) / columns. Waits for the device (the loss comes back to the host).
double softmax_cross_entropy(DeviceView logits, const DeviceArray<std::int32_t>& targets,
                             DeviceView d_logits);

}  // namespace tts::kernels::cuda
