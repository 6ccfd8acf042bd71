// The persistent WaveNet sampling kernel (see tts/kernels/cuda/wavenet_sampling.h for the design).
//
// One block of kThreads threads owns SPB streams and loops over their samples. Per sample and layer
// there are two block barriers: after the dilated convolution and gate (each warp computes a pair
// of rows, filter o and gate o + R, so the gate needs no extra pass), and after the residual
// projection, which also pushes the layer's input into its queue. Then the skip sum over all
// layers' gate outputs, the head's two layers and the categorical draw (one warp per stream), a
// barrier each. Every weight a warp loads is used for all SPB streams, and each stream's sums are
// formed in the same order whatever SPB is, so a stream's classes do not depend on how streams are
// batched.
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "cuda_check.h"
#include "warp_softmax.cuh"
#include "wavenet_sampling_kernel.h"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / kWarp;

// Per-stream shared memory: two residual buffers (ping-pong across layers), every layer's gate
// output, the skip sum, the head's hidden layer and the logits.
struct StreamSlots {
  int x0, x1, gated, skip, hidden, logits, total;
  __host__ __device__ StreamSlots(int layers, int r, int s, int a) {
    x0 = 0;
    x1 = r;
    gated = 2 * r;
    skip = gated + layers * r;
    hidden = skip + s;
    logits = hidden + s;
    total = logits + a;
  }
};

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

template <int SPB>
__global__ void __launch_bounds__(kThreads) wavenet_sampling_kernel(const WaveNetSamplingParams p) {
  extern __shared__ float shared[];
  __shared__ std::int32_t previous[SPB];
  __shared__ long long position[SPB], limit[SPB];
  __shared__ const float* conditioning[SPB];
  __shared__ float* queues[SPB];

  const int R = p.residual, R2 = 2 * R, S = p.skip, A = p.classes, L = p.layers;
  const StreamSlots slots(L, R, S, A);
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  const int first = blockIdx.x * SPB;
  auto at = [&](int s, int offset) { return shared + s * slots.total + offset; };

  if (threadIdx.x < SPB) {
    const int s = threadIdx.x, g = first + s;
    const bool exists = g < p.streams;
    previous[s] = exists ? p.previous_class[g] : 0;
    position[s] = exists ? p.position[g] : 0;
    limit[s] = exists ? p.limit[g] : 0;
    conditioning[s] = exists ? p.conditioning[g] : nullptr;
    queues[s] = exists ? p.queues + g * p.queue_stride : nullptr;
  }
  __syncthreads();
  long long steps = 0;
  for (int s = 0; s < SPB; ++s) steps = limit[s] > steps ? limit[s] : steps;

  for (long long t = 0; t < steps; ++t) {
    bool active[SPB];
    long long frame[SPB];
    float weight[SPB];
#pragma unroll
    for (int s = 0; s < SPB; ++s) {
      active[s] = t < limit[s];
      const long long pos = position[s] + t;
      frame[s] = pos / p.hop;
      weight[s] = static_cast<float>(pos % p.hop) / static_cast<float>(p.hop);
    }
    // Layer 0's input: the embedding of the previous class.
    for (int i = threadIdx.x; i < SPB * R; i += kThreads) {
      const int s = i / R, r = i % R;
      at(s, slots.x0)[r] = p.embedding[static_cast<long long>(previous[s]) * R + r];
    }
    __syncthreads();

    int input = slots.x0, output = slots.x1;
    for (int layer = 0; layer < L; ++layer) {
      const int d = p.dilation[layer];
      const float* w = p.dilated + static_cast<long long>(layer) * R2 * R2;
      float* queue[SPB];  // this layer's queue slot of each stream: the input `d` samples ago
#pragma unroll
      for (int s = 0; s < SPB; ++s)
        queue[s] = active[s] ? queues[s] + p.queue_offset[layer] +
                                   static_cast<long long>((position[s] + t) % d) * R
                             : nullptr;
      // Dilated convolution over [input `d` samples ago; input now], conditioning, gate.
      for (int o = warp; o < R; o += kWarps) {
        float filter[SPB], gate[SPB];
#pragma unroll
        for (int s = 0; s < SPB; ++s) filter[s] = gate[s] = 0.0f;
        const float* wf = w + static_cast<long long>(o) * R2;
        const float* wg = w + static_cast<long long>(o + R) * R2;
        for (int k = lane; k < R2; k += kWarp) {
          const float a = wf[k], b = wg[k];
#pragma unroll
          for (int s = 0; s < SPB; ++s) {
            if (!active[s]) continue;
            const float x = k < R ? queue[s][k] : at(s, input)[k - R];
            filter[s] = fmaf(a, x, filter[s]);
            gate[s] = fmaf(b, x, gate[s]);
          }
        }
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          filter[s] = warp_sum(filter[s]);
          gate[s] = warp_sum(gate[s]);
          if (lane == 0 && active[s]) {
            const float* c = conditioning[s] + frame[s] * (L * R2) + layer * R2;
            float cf = c[o], cg = c[o + R];
            if (weight[s] != 0.0f) {
              const float* n = c + L * R2;  // the next frame
              cf = (1.0f - weight[s]) * cf + weight[s] * n[o];
              cg = (1.0f - weight[s]) * cg + weight[s] * n[o + R];
            }
            at(s, slots.gated)[layer * R + o] = tanhf(filter[s] + cf) * sigmoid(gate[s] + cg);
          }
        }
      }
      __syncthreads();
      // The input joins this layer's queue; the residual projection makes the next layer's input.
#pragma unroll
      for (int s = 0; s < SPB; ++s)
        if (active[s])
          for (int r = threadIdx.x; r < R; r += kThreads) queue[s][r] = at(s, input)[r];
      if (layer + 1 < L) {
        const float* wr = p.residual_weight + static_cast<long long>(layer) * R * R;
        const float* br = p.residual_bias + static_cast<long long>(layer) * R;
        for (int o = warp; o < R; o += kWarps) {
          float sum[SPB];
#pragma unroll
          for (int s = 0; s < SPB; ++s) sum[s] = 0.0f;
          for (int k = lane; k < R; k += kWarp) {
            const float a = wr[static_cast<long long>(o) * R + k];
#pragma unroll
            for (int s = 0; s < SPB; ++s)
              sum[s] = fmaf(a, at(s, slots.gated)[layer * R + k], sum[s]);
          }
#pragma unroll
          for (int s = 0; s < SPB; ++s) {
            sum[s] = warp_sum(sum[s]);
            if (lane == 0) at(s, output)[o] = at(s, input)[o] + sum[s] + br[o];
          }
        }
      }
      __syncthreads();
      const int swap = input;
      input = output;
      output = swap;
    }

    // Skip sum over every layer's gate output, then the head: ReLU, 1×1, ReLU, 1×1.
    auto project = [&](const float* weights, const float* bias, int rows, int cols, int from,
                       int to, bool relu) {
      for (int o = warp; o < rows; o += kWarps) {
        float sum[SPB];
#pragma unroll
        for (int s = 0; s < SPB; ++s) sum[s] = 0.0f;
        const float* row = weights + static_cast<long long>(o) * cols;
        for (int k = lane; k < cols; k += kWarp) {
          const float a = row[k];
#pragma unroll
          for (int s = 0; s < SPB; ++s) sum[s] = fmaf(a, at(s, from)[k], sum[s]);
        }
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          sum[s] = warp_sum(sum[s]);
          if (lane == 0) at(s, to)[o] = relu ? fmaxf(sum[s] + bias[o], 0.0f) : sum[s] + bias[o];
        }
      }
      __syncthreads();
    };
    project(p.skip_weight, p.skip_bias, S, L * R, slots.gated, slots.skip, true);
    project(p.head_hidden, p.head_hidden_bias, S, S, slots.skip, slots.hidden, true);
    project(p.head_output, p.head_output_bias, A, S, slots.hidden, slots.logits, false);

    // The draw: warp s samples stream s.
    if (warp < SPB && t < limit[warp]) {
      const int s = warp, g = first + s;
      const float* logits = at(s, slots.logits);
      const float u = p.uniforms[static_cast<long long>(g) * p.count + t];
      const std::int32_t c = warp_softmax_sample(logits, A, p.temperature, u, lane);
      if (lane == 0) {
        previous[s] = c;
        p.out[static_cast<long long>(g) * p.count + t] = c;
      }
      if (p.logits_out) {
        float* dst = p.logits_out + (static_cast<long long>(g) * p.count + t) * A;
        for (int k = lane; k < A; k += kWarp) dst[k] = logits[k];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x < SPB && first + static_cast<int>(threadIdx.x) < p.streams)
    p.previous_class[first + threadIdx.x] = previous[threadIdx.x];
}

template <int SPB>
void launch(const WaveNetSamplingParams& params, cudaStream_t stream) {
  const int floats = SPB * wavenet_sampling_shared_floats(params.layers, params.residual,
                                                          params.skip, params.classes);
  const std::size_t bytes = static_cast<std::size_t>(floats) * sizeof(float);
  TTS_CUDA_CHECK(cudaFuncSetAttribute(wavenet_sampling_kernel<SPB>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(bytes)));
  const unsigned blocks = static_cast<unsigned>((params.streams + SPB - 1) / SPB);
  wavenet_sampling_kernel<SPB><<<blocks, kThreads, bytes, stream>>>(params);
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace

int wavenet_sampling_shared_floats(int layers, int residual, int skip, int classes) {
  return StreamSlots(layers, residual, skip, classes).total;
}

void launch_wavenet_sampling(const WaveNetSamplingParams& params, int streams_per_block,
                             cudaStream_t stream) {
  if (params.streams == 0 || params.count == 0) return;
  switch (streams_per_block) {
    case 1:
      return launch<1>(params, stream);
    case 2:
      return launch<2>(params, stream);
    case 4:
      return launch<4>(params, stream);
    case 8:
      return launch<8>(params, stream);
    default:
      throw std::invalid_argument("wavenet sampling: streams_per_block must be 1, 2, 4 or 8");
  }
}

}  // namespace tts::kernels::cuda::detail
