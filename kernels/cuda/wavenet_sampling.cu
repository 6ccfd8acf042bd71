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

#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "wavenet_sampling_steps.cuh"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / kWarp;
constexpr int kMaxSkipRowsPerWarp = 16;  // S ≤ 16 · kWarps = 256
static_assert(kMaxSkipRowsPerWarp * kWarps == kSamplingMaxSkip,
              "the kernel's skip rows and wavenet_sampling_shape.h must agree");

// SPB streams per block; R residual channels and NS skip rows per warp (S ≤ 16·NS), known at
// compile time so that each lane's share of
// a layer's weights fits in registers and can be loaded one stage ahead of its use: the dilated
// weights of layer i+1 load while layer i's residual runs, and layer i's residual and skip weights
// while its dilated convolution runs, so the L2 latency is off the serial path.
template <int SPB, int R, int NS>
__global__ void __launch_bounds__(kThreads, 1)
    wavenet_sampling_kernel(const WaveNetSamplingParams p) {
  constexpr int R2 = 2 * R;
  constexpr int kPairs = R / kWarps;              // dilated row pairs (and residual rows) per warp
  constexpr int kDilatedK = R2 / kWarp;           // dilated inputs per lane
  constexpr int kOutK = (R + kWarp - 1) / kWarp;  // residual and skip inputs per lane
  static_assert(R % kWarps == 0 && R2 % kWarp == 0, "R must be a multiple of 16");
  extern __shared__ float shared[];
  __shared__ BlockStreams<SPB> st;

  const int S = p.skip, L = p.layers, LR = p.layers * R;
  const StreamSlots slots(L, R, S, p.classes);
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  const int first = blockIdx.x * SPB;
  auto at = [&](int s, int offset) { return slots.at(shared, s, offset); };

  if (threadIdx.x < SPB) st.load(p, first, threadIdx.x);
  __syncthreads();
  const unsigned steps = st.steps();

  float wf[kPairs][kDilatedK], wg[kPairs][kDilatedK];  // a layer's dilated rows o and o + R
  float wr[kPairs][kOutK];                             // its residual rows
  float ws[NS][kOutK];                                 // its columns of the skip rows
  auto load_dilated = [&](int layer) {
    const float* __restrict__ w = p.dilated + static_cast<long long>(layer) * R2 * R2;
#pragma unroll
    for (int j = 0; j < kPairs; ++j)
#pragma unroll
      for (int q = 0; q < kDilatedK; ++q) {
        const int o = warp + kWarps * j, k = lane + kWarp * q;
        wf[j][q] = __ldg(w + o * R2 + k);
        wg[j][q] = __ldg(w + (o + R) * R2 + k);
      }
  };
  auto load_outputs = [&](int layer) {
    const float* __restrict__ w = p.residual_weight + static_cast<long long>(layer) * R * R;
#pragma unroll
    for (int j = 0; j < kPairs; ++j)
#pragma unroll
      for (int q = 0; q < kOutK; ++q) {
        const int o = warp + kWarps * j, k = lane + kWarp * q;
        wr[j][q] = (layer + 1 < L && k < R) ? __ldg(w + o * R + k) : 0.0f;
      }
#pragma unroll
    for (int j = 0; j < NS; ++j)
#pragma unroll
      for (int q = 0; q < kOutK; ++q) {
        const int o = warp + kWarps * j, k = lane + kWarp * q;
        ws[j][q] = (o < S && k < R)
                       ? __ldg(p.skip_weight + static_cast<long long>(o) * LR + layer * R + k)
                       : 0.0f;
      }
  };

  for (unsigned t = 0; t < steps; ++t) {
    bool active[SPB];
#pragma unroll
    for (int s = 0; s < SPB; ++s) active[s] = t < st.limit[s];
    load_dilated(0);
    stage_sample_inputs<SPB, R, kThreads>(p, st, slots, shared, t, active);
    float skip_sum[NS][SPB];  // this lane's share of each of its skip rows
#pragma unroll
    for (int j = 0; j < NS; ++j)
#pragma unroll
      for (int s = 0; s < SPB; ++s) skip_sum[j][s] = 0.0f;
    __syncthreads();

    int input = slots.x0, output = slots.x1;
    for (int layer = 0; layer < L; ++layer) {
      load_outputs(layer);
      // Dilated convolution over [past input; input], conditioning, gate.
#pragma unroll
      for (int j = 0; j < kPairs; ++j) {
        const int o = warp + kWarps * j;
        float filter[SPB], gate[SPB];
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          filter[s] = gate[s] = 0.0f;
#pragma unroll
          for (int q = 0; q < kDilatedK; ++q) {
            const int k = lane + kWarp * q;
            const float x = k < R ? at(s, slots.past)[layer * R + k] : at(s, input)[k - R];
            filter[s] = fmaf(wf[j][q], x, filter[s]);
            gate[s] = fmaf(wg[j][q], x, gate[s]);
          }
        }
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          filter[s] = warp_sum(filter[s]);
          gate[s] = warp_sum(gate[s]);
          if (lane == 0) {
            const float* c = at(s, slots.conditioning) + layer * R2;
            at(s, slots.gated)[o] = tanhf(filter[s] + c[o]) * sigmoid(gate[s] + c[o + R]);
          }
        }
      }
      __syncthreads();
      if (layer + 1 < L) load_dilated(layer + 1);
        // The input joins this layer's queue; the residual projection makes the next layer's input;
        // this lane's share of the layer's skip projection is added to its running skip sums.
#pragma unroll
      for (int s = 0; s < SPB; ++s)
        if (active[s] && threadIdx.x < R)
          st.queue_slot(p, s, layer, t, R)[threadIdx.x] = at(s, input)[threadIdx.x];
      if (layer + 1 < L) {
        const float* br = p.residual_bias + static_cast<long long>(layer) * R;
#pragma unroll
        for (int j = 0; j < kPairs; ++j) {
          const int o = warp + kWarps * j;
#pragma unroll
          for (int s = 0; s < SPB; ++s) {
            float sum = 0.0f;
#pragma unroll
            for (int q = 0; q < kOutK; ++q) {
              const int k = lane + kWarp * q;
              if (k < R) sum = fmaf(wr[j][q], at(s, slots.gated)[k], sum);
            }
            sum = warp_sum(sum);
            if (lane == 0) at(s, output)[o] = at(s, input)[o] + sum + br[o];
          }
        }
      }
#pragma unroll
      for (int j = 0; j < NS; ++j)
#pragma unroll
        for (int s = 0; s < SPB; ++s)
#pragma unroll
          for (int q = 0; q < kOutK; ++q) {
            const int k = lane + kWarp * q;
            if (k < R) skip_sum[j][s] = fmaf(ws[j][q], at(s, slots.gated)[k], skip_sum[j][s]);
          }
      __syncthreads();
      const int swap = input;
      input = output;
      output = swap;
    }

    // The skip sums, then the head: ReLU, 1×1, ReLU, 1×1.
#pragma unroll
    for (int j = 0; j < NS; ++j) {
      const int o = warp + kWarps * j;
      if (o >= S) continue;  // the same for the whole warp
#pragma unroll
      for (int s = 0; s < SPB; ++s) {
        const float sum = warp_sum(skip_sum[j][s]);
        if (lane == 0) at(s, slots.skip)[o] = fmaxf(sum + p.skip_bias[o], 0.0f);
      }
    }
    __syncthreads();
    project_head<SPB, kThreads>(p.head_hidden, p.head_hidden_bias, S, S, slots, shared, slots.skip,
                                slots.hidden, true);
    project_head<SPB, kThreads>(p.head_output, p.head_output_bias, p.classes, S, slots, shared,
                                slots.hidden, slots.logits, false);

    // The draw: warp s samples stream s.
    if (warp < SPB && t < st.limit[warp])
      draw_sample(p, st, slots, shared, first, warp, t,
                  p.uniforms[static_cast<long long>(first + warp) * p.count + t]);
    __syncthreads();
  }
  if (threadIdx.x < SPB) st.store(p, first, threadIdx.x);
}

template <int SPB, int R, int NS>
void launch(const WaveNetSamplingParams& params, cudaStream_t stream) {
  const int floats = SPB * wavenet_sampling_shared_floats(params.layers, params.residual,
                                                          params.skip, params.classes);
  launch_sampling_blocks<SPB>(wavenet_sampling_kernel<SPB, R, NS>, kThreads,
                              static_cast<std::size_t>(floats) * sizeof(float), params, stream);
}

template <int SPB, int R>
void launch_for_skip(const WaveNetSamplingParams& params, cudaStream_t stream) {
  if (params.skip <= 4 * kWarps) return launch<SPB, R, 4>(params, stream);
  if (params.skip <= 8 * kWarps) return launch<SPB, R, 8>(params, stream);
  return launch<SPB, R, kMaxSkipRowsPerWarp>(params, stream);
}

template <int SPB>
void launch_for_channels(const WaveNetSamplingParams& params, cudaStream_t stream) {
  switch (params.residual) {
    case 16:
      return launch_for_skip<SPB, 16>(params, stream);
    case 32:
      return launch_for_skip<SPB, 32>(params, stream);
    case 64:
      return launch_for_skip<SPB, 64>(params, stream);
    default:
      throw std::invalid_argument("wavenet sampling: residual channels must be 16, 32 or 64");
  }
}

}  // namespace

int wavenet_sampling_shared_floats(int layers, int residual, int skip, int classes) {
  return StreamSlots(layers, residual, skip, classes).total;
}

bool wavenet_sampling_supports(int residual, int skip) {
  return (residual == 16 || residual == 32 || residual == 64) && skip >= 1 &&
         skip <= kMaxSkipRowsPerWarp * kWarps;
}

void launch_wavenet_sampling(const WaveNetSamplingParams& params, int streams_per_block,
                             cudaStream_t stream) {
  if (params.streams == 0 || params.count == 0) return;
  if (!wavenet_sampling_supports(params.residual, params.skip))
    throw std::invalid_argument("wavenet sampling: unsupported channel counts");
  with_streams_per_block(streams_per_block, [&](auto spb) {
    launch_for_channels<decltype(spb)::value>(params, stream);
  });
}

}  // namespace tts::kernels::cuda::detail
