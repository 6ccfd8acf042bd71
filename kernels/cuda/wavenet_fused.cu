// The fused element-wise passes of a WaveNet training step (the device-op interface's
// wavenet_layer_input, wavenet_layer_input_backward, conditioned_gate_forward,
// conditioned_gate_backward and bias_relu_forward, tts/kernels/ops/backend.h), and the kernels that
// write or read the 16-bit activations a bf16/fp16 step feeds its GEMMs. Each reads and writes an
// activation once where the unfused ops took a pass each; each computes, per element, the same
// float expressions as the ops it replaces (kernels/ops/fused_ops.cpp), so fp32 results are
// unchanged by the fusion.
#include <cstddef>
#include <cstdint>

#include "cuda_check.h"
#include "element_store.cuh"
#include "gate_math.cuh"
#include "grid_stride.cuh"
#include "launchers.h"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = kElementwiseThreads;

template <typename T>
__global__ void convert_kernel(const float* in, int ld_in, int rows, int cols, T* out, int ld_out) {
  for_each_element(rows, cols,
                   [&](int r, std::size_t c) { store(out + c * ld_out + r, in[c * ld_in + r]); });
}

// One thread per element of h: h_out = h + bias; stacked's bottom half = h_out; its top half at
// column c = h_out at c - shift within the segment (recomputed from h there, not read back from
// h_out, which another thread may not have written yet).
template <typename T>
__global__ void layer_input_kernel(const float* h, int ld_h, const float* bias, int r, int cols,
                                   int shift, int length, float* h_out, int ld_h_out, T* stacked,
                                   int ld_stacked, bool write_h_out) {
  for_each_element(r, cols, [&](int row, std::size_t c) {
    const float b = bias ? bias[row] : 0.0f;
    const float v = bias ? h[c * ld_h + row] + b : h[c * ld_h + row];
    if (write_h_out) h_out[c * ld_h_out + row] = v;
    T* s = stacked + c * ld_stacked;
    store(s + r + row, v);
    const int t = static_cast<int>(c % length);
    const float shifted =
        t >= shift ? (bias ? h[(c - shift) * ld_h + row] + b : h[(c - shift) * ld_h + row]) : 0.0f;
    store(s + row, shifted);
  });
}

// d_h = (d_h + d_in[R + row, c]) + d_in[row, c + shift] (when inside the segment), the order of
// add() then causal_shift_backward(); rounded (may be null) gets the result in T.
template <typename T>
__global__ void layer_input_backward_kernel(const T* d_in, int ld_d_in, int r, int cols, int shift,
                                            int length, float* d_h, int ld_d_h, T* rounded,
                                            int ld_rounded) {
  for_each_element(r, cols, [&](int row, std::size_t c) {
    float v = d_h[c * ld_d_h + row] + load(d_in + c * ld_d_in + r + row);
    const int t = static_cast<int>(c % length);
    if (t + shift < length) v += load(d_in + (c + shift) * ld_d_in + row);
    d_h[c * ld_d_h + row] = v;
    if (rounded) store(rounded + c * ld_rounded + row, v);
  });
}

// z's filter and gate rows plus the interpolated frames, then the gate; the frame term is the
// expression of add_interpolated_columns, added to z as there.
template <typename T>
__global__ void conditioned_gate_kernel(const T* z, int ld_z, const float* frames, int ld_frames,
                                        const std::int32_t* index, const float* weight, int r,
                                        int cols, T* gated, int ld_gated, T* tanh_out,
                                        T* sigmoid_out) {
  for_each_element(r, cols, [&](int row, std::size_t c) {
    const float w = weight[c];
    const float* f = frames + std::size_t(index[c]) * ld_frames;
    const T* zc = z + c * ld_z;
    const float filter =
        load(zc + row) + (w == 0.0f ? f[row] : (1.0f - w) * f[row] + w * f[ld_frames + row]);
    const float gate =
        load(zc + r + row) +
        (w == 0.0f ? f[r + row] : (1.0f - w) * f[r + row] + w * f[ld_frames + r + row]);
    const float t = tanhf(filter), s = sigmoid(gate);
    store(gated + c * ld_gated + row, t * s);
    const std::size_t kept = c * r + row;
    store(tanh_out + kept, t);
    store(sigmoid_out + kept, s);
  });
}

// gate_backward followed by the sorted interpolation adjoint (training_kernels.cu), in one pass:
// one thread per (row, frame) of the filter half. Each column belongs to exactly one frame's own
// range [first[f], first[f + 1]), whose thread writes its dz; frame f also receives the w-weighted
// dz of the previous frame's columns, which its thread recomputes instead of reading them back
// (those values are in cache: the neighbouring thread reads the same inputs). The sums run in the
// unfused kernel's order over dz as stored in T, so the result is the unfused pair's to the bit.
template <typename T>
__global__ void conditioned_gate_backward_kernel(const float* d_gated, int ld_d_gated,
                                                 const T* tanh_out, const T* sigmoid_out, int r,
                                                 const std::int32_t* first, const float* weight,
                                                 int frames, T* dz, int ld_dz, float* d_frames,
                                                 int ld_d_frames) {
  for_each_element(r, frames, [&](int row, std::size_t f) {
    float filter_sum = 0.0f, gate_sum = 0.0f;
    auto adjoints = [&](std::int32_t n, float* d_filter, float* d_gate) {
      const std::size_t kept = std::size_t(n) * r + row;
      const float d = d_gated[std::size_t(n) * ld_d_gated + row], t = load(tanh_out + kept),
                  s = load(sigmoid_out + kept);
      *d_filter = as_stored<T>(gate_filter_adjoint(d, t, s));
      *d_gate = as_stored<T>(gate_gate_adjoint(d, t, s));
    };
    float d_filter = 0.0f, d_gate = 0.0f;
    if (f > 0)
      for (std::int32_t n = first[f - 1]; n < first[f]; ++n) {
        const float w = weight[n];
        if (w == 0.0f) continue;
        adjoints(n, &d_filter, &d_gate);
        filter_sum = fmaf(w, d_filter, filter_sum);
        gate_sum = fmaf(w, d_gate, gate_sum);
      }
    for (std::int32_t n = first[f]; n < first[f + 1]; ++n) {
      adjoints(n, &d_filter, &d_gate);
      T* dzc = dz + std::size_t(n) * ld_dz;
      store(dzc + row, d_filter);
      store(dzc + r + row, d_gate);
      const float w = weight[n];
      filter_sum = fmaf(1.0f - w, d_filter, filter_sum);
      gate_sum = fmaf(1.0f - w, d_gate, gate_sum);
    }
    d_frames[f * ld_d_frames + row] += filter_sum;
    d_frames[f * ld_d_frames + r + row] += gate_sum;
  });
}

template <typename T>
__global__ void bias_relu_kernel(float* x, int ld_x, const float* bias, int rows, int cols, T* y,
                                 int ld_y) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    float v = x[c * ld_x + r];
    v += bias[r];
    store(y + c * ld_y + r, fmaxf(v, 0.0f));
  });
}

template <typename T>
__global__ void relu_backward_kernel(const float* dy, int ld_dy, const T* y, int ld_y, int rows,
                                     int cols, T* dx, int ld_dx) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    store(dx + c * ld_dx + r, load(y + c * ld_y + r) > 0.0f ? dy[c * ld_dy + r] : 0.0f);
  });
}

template <typename T>
__global__ void scale_kernel(T* x, int ld, int rows, int cols, float factor) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    T* p = x + c * ld + r;
    store(p, load(p) * factor);
  });
}

}  // namespace

void launch_convert(const float* in, int ld_in, int rows, int cols, void* out, int ld_out,
                    Element element, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    convert_kernel<T><<<element_blocks(rows, cols), kThreads, 0, stream>>>(
        in, ld_in, rows, cols, static_cast<T*>(out), ld_out);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_wavenet_layer_input(const float* h, int ld_h, const float* bias, int r, int cols,
                                int shift, int length, float* h_out, int ld_h_out, void* stacked,
                                int ld_stacked, Element element, cudaStream_t stream) {
  if (r == 0 || cols == 0) return;
  const bool write_h_out = h_out != h;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    layer_input_kernel<T><<<element_blocks(r, cols), kThreads, 0, stream>>>(
        h, ld_h, bias, r, cols, shift, length, h_out, ld_h_out, static_cast<T*>(stacked),
        ld_stacked, write_h_out);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_wavenet_layer_input_backward(const void* d_in, int ld_d_in, int r, int cols, int shift,
                                         int length, float* d_h, int ld_d_h, void* rounded,
                                         int ld_rounded, Element element, cudaStream_t stream) {
  if (r == 0 || cols == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    layer_input_backward_kernel<T><<<element_blocks(r, cols), kThreads, 0, stream>>>(
        static_cast<const T*>(d_in), ld_d_in, r, cols, shift, length, d_h, ld_d_h,
        static_cast<T*>(rounded), ld_rounded);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_conditioned_gate(const void* z, int ld_z, const float* frames, int ld_frames,
                             const std::int32_t* index, const float* weight, int r, int cols,
                             void* gated, int ld_gated, Element element, void* tanh_out,
                             void* sigmoid_out, cudaStream_t stream) {
  if (r == 0 || cols == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    conditioned_gate_kernel<T><<<element_blocks(r, cols), kThreads, 0, stream>>>(
        static_cast<const T*>(z), ld_z, frames, ld_frames, index, weight, r, cols,
        static_cast<T*>(gated), ld_gated, static_cast<T*>(tanh_out), static_cast<T*>(sigmoid_out));
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_conditioned_gate_backward(const float* d_gated, int ld_d_gated, const void* tanh_out,
                                      const void* sigmoid_out, int r, const std::int32_t* first,
                                      const float* weight, int frames, void* dz, int ld_dz,
                                      Element element, float* d_frames, int ld_d_frames,
                                      cudaStream_t stream) {
  if (r == 0 || frames == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    conditioned_gate_backward_kernel<T><<<element_blocks(r, frames), kThreads, 0, stream>>>(
        d_gated, ld_d_gated, static_cast<const T*>(tanh_out), static_cast<const T*>(sigmoid_out), r,
        first, weight, frames, static_cast<T*>(dz), ld_dz, d_frames, ld_d_frames);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_bias_relu(float* x, int ld_x, const float* bias, int rows, int cols, void* y, int ld_y,
                      Element element, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    bias_relu_kernel<T><<<element_blocks(rows, cols), kThreads, 0, stream>>>(
        x, ld_x, bias, rows, cols, static_cast<T*>(y), ld_y);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_relu_backward(const float* dy, int ld_dy, const void* y, int ld_y, int rows, int cols,
                          void* dx, int ld_dx, Element element, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    relu_backward_kernel<T><<<element_blocks(rows, cols), kThreads, 0, stream>>>(
        dy, ld_dy, static_cast<const T*>(y), ld_y, rows, cols, static_cast<T*>(dx), ld_dx);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_scale(void* x, int ld, int rows, int cols, float factor, Element element,
                  cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  with_element_type(element, [&](auto tag) {
    using T = decltype(tag);
    scale_kernel<T><<<element_blocks(rows, cols), kThreads, 0, stream>>>(static_cast<T*>(x), ld,
                                                                         rows, cols, factor);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace tts::kernels::cuda::detail
