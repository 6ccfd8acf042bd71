// Device and launch pieces that both persistent sampling kernels share (wavenet_sampling.cu, the
// warp-per-row kernel, and wavenet_sampling_rows.cu, the split-row kernel): the per-stream layout
// of shared memory, the block's view of its streams, the staging of a sample's inputs, the head's
// two projections, the draw, and the launch. The kernels differ only in how they spread a layer's
// three matrices over their threads; everything around the layers is here, written once, so that
// the two cannot drift apart (a stream's classes must not depend on which kernel made them).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "cuda_check.h"
#include "warp_softmax.cuh"
#include "wavenet_sampling_kernel.h"

namespace tts::kernels::cuda::detail {

// Per-stream shared memory: every layer's past input (its queue slot) and conditioning
// (interpolated between frames), both staged at the start of the sample, two residual buffers
// (ping-pong across layers), the current layer's gate output, the skip sum, the head's hidden layer
// and the logits.
struct StreamSlots {
  int past, conditioning, x0, x1, gated, skip, hidden, logits, total;
  __host__ __device__ StreamSlots(int layers, int r, int s, int a) {
    past = 0;
    conditioning = past + layers * r;
    x0 = conditioning + layers * 2 * r;
    x1 = x0 + r;
    gated = x1 + r;
    skip = gated + r;
    hidden = skip + s;
    logits = hidden + s;
    total = logits + a;
  }
  // Stream s's slot at `offset`, in the block's dynamic shared memory `shared`.
  __device__ float* at(float* shared, int s, int offset) const {
    return shared + s * total + offset;
  }
};

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// The block's SPB streams, kept in shared memory: each one's last class, the sample index of its
// first sample in this launch, how many samples it makes now, its conditioning and its queues.
template <int SPB>
struct BlockStreams {
  std::int32_t previous[SPB];
  unsigned position[SPB], limit[SPB];
  const float* conditioning[SPB];
  float* queues[SPB];

  // Thread s < SPB reads stream first + s (a slot past the last stream makes no samples); a
  // barrier must follow before any thread reads the result.
  __device__ void load(const WaveNetSamplingParams& p, int first, int s) {
    const int g = first + s;
    const bool exists = g < p.streams;
    previous[s] = exists ? p.previous_class[g] : 0;
    position[s] = exists ? static_cast<unsigned>(p.position[g]) : 0;
    limit[s] = exists ? static_cast<unsigned>(p.limit[g]) : 0;
    conditioning[s] = exists ? p.conditioning[g] : nullptr;
    queues[s] = exists ? p.queues + g * p.queue_stride : nullptr;
  }
  // Samples this block makes: the longest of its streams' limits.
  __device__ unsigned steps() const {
    unsigned most = 0;
    for (int s = 0; s < SPB; ++s) most = max(most, limit[s]);
    return most;
  }
  // Thread s < SPB hands stream first + s's last class back for the next launch.
  __device__ void store(const WaveNetSamplingParams& p, int first, int s) const {
    if (first + s < p.streams) p.previous_class[first + s] = previous[s];
  }
  // The queue slot of `layer` for sample `step` of stream s.
  __device__ float* queue_slot(const WaveNetSamplingParams& p, int s, int layer, unsigned step,
                               int residual) const {
    const unsigned slot = (position[s] + step) % static_cast<unsigned>(p.dilation[layer]);
    return queues[s] + p.queue_offset[layer] + slot * residual;
  }
};

// Stages sample `step`'s inputs for every active stream, all kThreads threads together: every
// layer's past input (its queue slot), every layer's conditioning (linear between the two
// frames around the sample), and layer 0's input (the embedding of the last class). A barrier
// must follow.
template <int SPB, int R, int kThreads>
__device__ void stage_sample_inputs(const WaveNetSamplingParams& p, const BlockStreams<SPB>& st,
                                    const StreamSlots& slots, float* shared, unsigned step,
                                    const bool (&active)[SPB]) {
  const int LR = p.layers * R;
  for (int i = threadIdx.x; i < SPB * LR; i += kThreads) {
    const int s = i / LR, layer = (i % LR) / R, r = i % R;
    if (!active[s]) continue;
    slots.at(shared, s, slots.past)[i % LR] = st.queue_slot(p, s, layer, step, R)[r];
  }
  for (int i = threadIdx.x; i < SPB * 2 * LR; i += kThreads) {
    const int s = i / (2 * LR), row = i % (2 * LR);
    if (!active[s]) continue;
    const unsigned pos = st.position[s] + step, frame = pos / p.hop;
    const float weight = static_cast<float>(pos % p.hop) / static_cast<float>(p.hop);
    const float* c = st.conditioning[s] + static_cast<long long>(frame) * 2 * LR + row;
    slots.at(shared, s, slots.conditioning)[row] =
        weight == 0.0f ? c[0] : (1.0f - weight) * c[0] + weight * c[2 * LR];
  }
  for (int i = threadIdx.x; i < SPB * R; i += kThreads) {
    const int s = i / R, r = i % R;
    slots.at(shared, s, slots.x0)[r] = p.embedding[static_cast<long long>(st.previous[s]) * R + r];
  }
}

// One of the head's 1×1 layers for every stream of the block: slot `to` = weights · slot `from` +
// bias (then ReLU when `relu`); `weights` is rows × cols, row-major, in global or shared memory.
// Each row goes to P neighbouring lanes (P a power of two, as large as the block allows, up to 32)
// that each sum cols / P of its columns and then meet in a log2(P)-step shuffle sum: the head's
// output layer has 256 rows, and one warp per row made each warp walk 8 of them one after another
// (11% of a sample, measured). Lane `part` of row r takes the columns ≡ part (mod P), starting
// r·P further along, so that the lanes of a warp read 32 different shared-memory banks. The order
// of a row's sum depends only on the row, never on the stream or the batch. Ends with a barrier.
template <int SPB, int kThreads>
__device__ void project_head(const float* weights, const float* bias, int rows, int cols,
                             const StreamSlots& slots, float* shared, int from, int to, bool relu) {
  int lanes = kWarp;  // P
  while (lanes > 1 && (rows * lanes > kThreads || cols % lanes != 0)) lanes >>= 1;
  const int rows_per_pass = kThreads / lanes, part = threadIdx.x % lanes, n = cols / lanes;
  for (int first_row = 0; first_row < rows;
       first_row += rows_per_pass) {  // the same in every thread
    const int r = first_row + static_cast<int>(threadIdx.x) / lanes;
    float sum[SPB];
#pragma unroll
    for (int s = 0; s < SPB; ++s) sum[s] = 0.0f;
    if (r < rows) {
      const float* weight_row = weights + static_cast<long long>(r) * cols;
      int k = (part + r * lanes) % cols;
#pragma unroll 4
      for (int i = 0; i < n; ++i) {
        const float a = weight_row[k];
#pragma unroll
        for (int s = 0; s < SPB; ++s) sum[s] = fmaf(a, slots.at(shared, s, from)[k], sum[s]);
        k += lanes;
        if (k >= cols) k -= cols;
      }
    }
#pragma unroll
    for (int s = 0; s < SPB; ++s) {
      for (int m = 1; m < lanes; m <<= 1) sum[s] += __shfl_xor_sync(kFullMask, sum[s], m);
      if (r < rows && part == 0)
        slots.at(shared, s, to)[r] = relu ? fmaxf(sum[s] + bias[r], 0.0f) : sum[s] + bias[r];
    }
  }
  __syncthreads();
}

// The draw of sample `step` for stream s, by warp s alone: the class from the logits at
// `uniform`, remembered as the stream's last class and written out (with the logits when asked).
template <int SPB>
__device__ void draw_sample(const WaveNetSamplingParams& p, BlockStreams<SPB>& st,
                            const StreamSlots& slots, float* shared, int first, int s,
                            unsigned step, float uniform) {
  const int lane = threadIdx.x % kWarp, g = first + s, A = p.classes;
  const float* logits = slots.at(shared, s, slots.logits);
  const std::int32_t c = warp_softmax_sample(logits, A, p.temperature, uniform, lane);
  if (lane == 0) {
    st.previous[s] = c;
    p.out[static_cast<long long>(g) * p.count + step] = c;
  }
  if (p.logits_out) {
    float* dst = p.logits_out + (static_cast<long long>(g) * p.count + step) * A;
    for (int k = lane; k < A; k += kWarp) dst[k] = logits[k];
  }
}

// Launches `kernel` with ceil(streams / SPB) blocks of `threads` threads and `bytes` of dynamic
// shared memory (raised past the default 48 KiB as needed).
template <int SPB>
void launch_sampling_blocks(void (*kernel)(WaveNetSamplingParams), int threads, std::size_t bytes,
                            const WaveNetSamplingParams& params, cudaStream_t stream) {
  TTS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(bytes)));
  const unsigned blocks = static_cast<unsigned>((params.streams + SPB - 1) / SPB);
  kernel<<<blocks, threads, bytes, stream>>>(params);
  TTS_CUDA_CHECK_LAUNCH();
}

// Calls launch(std::integral_constant<int, SPB>{}) for streams_per_block = SPB ∈ {1, 2, 4}.
template <typename Launch>
void with_streams_per_block(int streams_per_block, Launch&& launch) {
  switch (streams_per_block) {
    case 1:
      return launch(std::integral_constant<int, 1>{});
    case 2:
      return launch(std::integral_constant<int, 2>{});
    case 4:
      return launch(std::integral_constant<int, 4>{});
    default:
      throw std::invalid_argument("wavenet sampling: streams_per_block must be 1, 2 or 4");
  }
}

}  // namespace tts::kernels::cuda::detail
