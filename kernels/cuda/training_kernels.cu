// The element-wise and indexing kernels of a WaveNet training step on the GPU: bias, ReLU, causal
// shifts, frame interpolation and embeddings, forward and backward (semantics in
// kernels/cuda/device_ops.h; the CPU versions are kernels/cpu/*.cpp). Every kernel is a
// grid-stride loop over the rows × cols elements of its output, rows fastest, so that neighbouring
// threads touch neighbouring addresses of a column-major matrix; matrices may be views with a
// column stride (ld) larger than their rows. The backward passes that scatter (into frames, into
// the embedding table) gather instead, by a plan (scatter_add): nothing adds atomically, so every
// run gives the same bits.
#include <cstddef>
#include <cstdint>

#include "cuda_check.h"
#include "element_store.cuh"
#include "grid_stride.cuh"
#include "launchers.h"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = kElementwiseThreads;

__global__ void add_bias_kernel(float* x, int rows, int cols, int ld, const float* bias) {
  for_each_element(rows, cols, [&](int r, std::size_t c) { x[c * ld + r] += bias[r]; });
}

__global__ void relu_forward_kernel(const float* x, int ld_x, int rows, int cols, float* y,
                                    int ld_y) {
  for_each_element(rows, cols,
                   [&](int r, std::size_t c) { y[c * ld_y + r] = fmaxf(x[c * ld_x + r], 0.0f); });
}

// Columns are `cols / length` segments of `length`; t is a column's place in its segment.
__global__ void causal_shift_kernel(const float* x, int ld_x, int rows, int cols, int shift,
                                    int length, float* out, int ld_out) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    const int t = static_cast<int>(c % length);
    out[c * ld_out + r] = t >= shift ? x[(c - shift) * ld_x + r] : 0.0f;
  });
}

__global__ void causal_shift_backward_kernel(const float* d_out, int ld_d_out, int rows, int cols,
                                             int shift, int length, float* dx, int ld_dx) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    const int t = static_cast<int>(c % length);
    if (t + shift < length) dx[c * ld_dx + r] += d_out[(c + shift) * ld_d_out + r];
  });
}

__global__ void add_interpolated_columns_kernel(const float* frames, int ld_frames,
                                                const std::int32_t* index, const float* weight,
                                                int rows, int cols, float* out, int ld_out) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    const float w = weight[c];
    const float* f = frames + std::size_t(index[c]) * ld_frames + r;
    // The CPU's two cases, so that an exact frame position adds exactly that frame.
    out[c * ld_out + r] += w == 0.0f ? f[0] : (1.0f - w) * f[0] + w * f[ld_frames];
  });
}

__global__ void embedding_lookup_kernel(const float* table, int ld_table, const std::int32_t* ids,
                                        int rows, int cols, float* out, int ld_out) {
  for_each_element(rows, cols, [&](int r, std::size_t c) {
    out[c * ld_out + r] = table[std::size_t(ids[c]) * ld_table + r];
  });
}

// One thread per target element, summing its sources in the plan's order: no atomics, so the
// result is the same on every run.
template <typename T>
__global__ void scatter_add_kernel(const T* d_out, int ld_d_out, int rows,
                                   const std::int32_t* offsets, const std::int32_t* columns,
                                   const float* coefficients, int targets, float* d_targets,
                                   int ld_targets) {
  for_each_element(rows, targets, [&](int r, std::size_t t) {
    float sum = 0.0f;
    for (std::int32_t j = offsets[t]; j < offsets[t + 1]; ++j)
      sum = fmaf(coefficients[j], load(d_out + std::size_t(columns[j]) * ld_d_out + r), sum);
    d_targets[t * ld_targets + r] += sum;
  });
}

// A chunked plan's two steps: one thread per (row, chunk) sums the chunk's entries in order (the
// expression of scatter_add_kernel), then one thread per (row, target) sums its chunks' partial
// sums in order, starting from the first, so that a target of one chunk gets scatter_add_kernel's
// bits.
template <typename T>
__global__ void scatter_partials_kernel(const T* d_out, int ld_d_out, int rows,
                                        const std::int32_t* chunk_first, int chunks,
                                        const std::int32_t* columns, const float* coefficients,
                                        float* partials) {
  for_each_element(rows, chunks, [&](int r, std::size_t c) {
    float sum = 0.0f;
    for (std::int32_t j = chunk_first[c]; j < chunk_first[c + 1]; ++j)
      sum = fmaf(coefficients[j], load(d_out + std::size_t(columns[j]) * ld_d_out + r), sum);
    partials[c * rows + r] = sum;
  });
}

__global__ void scatter_chunks_kernel(const float* partials, int rows,
                                      const std::int32_t* target_chunks, int targets,
                                      float* d_targets, int ld_targets) {
  for_each_element(rows, targets, [&](int r, std::size_t t) {
    const std::int32_t first = target_chunks[t], end = target_chunks[t + 1];
    if (first == end) return;  // no entries: nothing to add (as adding 0.0f)
    float sum = partials[std::size_t(first) * rows + r];
    for (std::int32_t c = first + 1; c < end; ++c) sum += partials[std::size_t(c) * rows + r];
    d_targets[t * ld_targets + r] += sum;
  });
}

// One thread per frame element: its sources in increasing column order, as the plan lists them.
template <typename T>
__global__ void interpolation_backward_sorted_kernel(const T* d_out, int ld_d_out, int rows,
                                                     const std::int32_t* first, const float* weight,
                                                     int frames, float* d_frames, int ld_d_frames) {
  for_each_element(rows, frames, [&](int r, std::size_t f) {
    float sum = 0.0f;
    if (f > 0)
      for (std::int32_t n = first[f - 1]; n < first[f]; ++n)
        if (weight[n] != 0.0f)
          sum = fmaf(weight[n], load(d_out + std::size_t(n) * ld_d_out + r), sum);
    for (std::int32_t n = first[f]; n < first[f + 1]; ++n)
      sum = fmaf(1.0f - weight[n], load(d_out + std::size_t(n) * ld_d_out + r), sum);
    d_frames[f * ld_d_frames + r] += sum;
  });
}

}  // namespace

void launch_interpolation_backward_sorted(const void* d_out, int ld_d_out, Element d_out_element,
                                          int rows, const std::int32_t* first, const float* weight,
                                          int frames, float* d_frames, int ld_d_frames,
                                          cudaStream_t stream) {
  if (rows == 0 || frames == 0) return;
  with_element_type(d_out_element, [&](auto tag) {
    using T = decltype(tag);
    interpolation_backward_sorted_kernel<T><<<element_blocks(rows, frames), kThreads, 0, stream>>>(
        static_cast<const T*>(d_out), ld_d_out, rows, first, weight, frames, d_frames, ld_d_frames);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_add_bias(float* x, int rows, int cols, int ld, const float* bias, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  add_bias_kernel<<<element_blocks(rows, cols), kThreads, 0, stream>>>(x, rows, cols, ld, bias);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_relu_forward(const float* x, int ld_x, int rows, int cols, float* y, int ld_y,
                         cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  relu_forward_kernel<<<element_blocks(rows, cols), kThreads, 0, stream>>>(x, ld_x, rows, cols, y,
                                                                           ld_y);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_causal_shift(const float* x, int ld_x, int rows, int cols, int shift, int length,
                         float* out, int ld_out, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  causal_shift_kernel<<<element_blocks(rows, cols), kThreads, 0, stream>>>(
      x, ld_x, rows, cols, shift, length, out, ld_out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_causal_shift_backward(const float* d_out, int ld_d_out, int rows, int cols, int shift,
                                  int length, float* dx, int ld_dx, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  causal_shift_backward_kernel<<<element_blocks(rows, cols), kThreads, 0, stream>>>(
      d_out, ld_d_out, rows, cols, shift, length, dx, ld_dx);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_add_interpolated_columns(const float* frames, int ld_frames, const std::int32_t* index,
                                     const float* weight, int rows, int cols, float* out,
                                     int ld_out, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  add_interpolated_columns_kernel<<<element_blocks(rows, cols), kThreads, 0, stream>>>(
      frames, ld_frames, index, weight, rows, cols, out, ld_out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_embedding_lookup(const float* table, int ld_table, const std::int32_t* ids, int rows,
                             int cols, float* out, int ld_out, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  embedding_lookup_kernel<<<element_blocks(rows, cols), kThreads, 0, stream>>>(
      table, ld_table, ids, rows, cols, out, ld_out);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_scatter_add(const void* d_out, int ld_d_out, Element d_out_element, int rows,
                        const std::int32_t* offsets, const std::int32_t* columns,
                        const float* coefficients, int targets, float* d_targets, int ld_targets,
                        cudaStream_t stream) {
  if (rows == 0 || targets == 0) return;
  with_element_type(d_out_element, [&](auto tag) {
    using T = decltype(tag);
    scatter_add_kernel<T><<<element_blocks(rows, targets), kThreads, 0, stream>>>(
        static_cast<const T*>(d_out), ld_d_out, rows, offsets, columns, coefficients, targets,
        d_targets, ld_targets);
  });
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_scatter_add_chunked(const void* d_out, int ld_d_out, Element d_out_element, int rows,
                                const std::int32_t* chunk_first, int chunks,
                                const std::int32_t* target_chunks, const std::int32_t* columns,
                                const float* coefficients, int targets, float* partials,
                                float* d_targets, int ld_targets, cudaStream_t stream) {
  if (rows == 0 || targets == 0) return;
  if (chunks > 0)
    with_element_type(d_out_element, [&](auto tag) {
      using T = decltype(tag);
      scatter_partials_kernel<T><<<element_blocks(rows, chunks), kThreads, 0, stream>>>(
          static_cast<const T*>(d_out), ld_d_out, rows, chunk_first, chunks, columns, coefficients,
          partials);
    });
  TTS_CUDA_CHECK_LAUNCH();
  scatter_chunks_kernel<<<element_blocks(rows, targets), kThreads, 0, stream>>>(
      partials, rows, target_chunks, targets, d_targets, ld_targets);
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace tts::kernels::cuda::detail
