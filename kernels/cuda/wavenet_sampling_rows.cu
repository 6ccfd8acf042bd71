// The split-row WaveNet sampling kernel: the fast variant for R = 16 or 32 residual channels (the
// bundled voice has 32). Same contract and parameters as wavenet_sampling.cu, which remains the
// general variant (R = 64 too); see tts/kernels/cuda/wavenet_sampling.h for the design around both.
//
// Where the general kernel gives each warp whole rows (32 lanes over one row's inputs, then a
// 5-step shuffle sum per row), this one gives each matrix row to P = R/8 neighbouring lanes, each
// holding 16 or 8 of the row's weights in registers, and gives the three matrices of a layer to
// three disjoint groups of warps:
//   A  2R·P threads: the dilated convolution (rows o and o + R, filter and gate, in the two halves
//      of one warp, so the gate is one shuffle away), then the gate;
//   B  R·P threads: the residual projection;
//   K  S·P/NSK threads: the skip projection, NSK rows each, summed in registers over all layers and
//      reduced once per sample.
// Each group loads its next weights while the other works: A the next layer's during B and K,
// B and K this layer's during A, so the L2 latency stays off the serial path. (Loading them right
// after a group's own multiply-adds, as a first version did, let the compiler move the loaded
// registers into place at once, which waited for the loads: 40% of stage A, measured with ncu.) Per
// sample that is one barrier after staging the inputs (every layer's queue slot and the embedding),
// two per layer (after A, after B and K) and four for the head and the draw; far fewer instructions
// per sample than the general kernel, whose cost was the per-row shuffle sums of its 16 warps.
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "wavenet_sampling_steps.cuh"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = 1024;

template <int R>
struct Split {
  static constexpr int P = R / 8;       // lanes per row
  static constexpr int KA = 2 * R / P;  // dilated inputs per lane (16)
  static constexpr int KB = R / P;      // residual and skip inputs per lane (8)
  static constexpr int kA = 2 * R * P;  // threads of group A
  static constexpr int kB = R * P;      // threads of group B
};

__host__ __device__ inline int skip_threads(int residual, int skip, int rows_per_thread) {
  const int p = residual / 8;
  const int threads = (skip + rows_per_thread - 1) / rows_per_thread * p;
  return (threads + kWarp - 1) / kWarp * kWarp;  // whole warps: the group's shuffles need them
}

__device__ __forceinline__ void load4(float* to, const float* from) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(from));
  to[0] = v.x;
  to[1] = v.y;
  to[2] = v.z;
  to[3] = v.w;
}

// The sum over a group of `lanes` neighbouring lanes (a power of two), in every lane of the group.
template <int lanes>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int m = 1; m < lanes; m <<= 1) v += __shfl_xor_sync(kFullMask, v, m);
  return v;
}

template <int SPB, int R, int NSK>
__global__ void __launch_bounds__(kThreads, 1)
    wavenet_sampling_rows_kernel(const WaveNetSamplingParams p) {
  using G = Split<R>;
  constexpr int R2 = 2 * R;
  extern __shared__ float shared[];
  __shared__ BlockStreams<SPB> st;

  const int S = p.skip, A = p.classes, L = p.layers, LR = p.layers * R;
  const StreamSlots slots(L, R, S, A);
  const int t = threadIdx.x, warp = t / kWarp, lane = t % kWarp;
  const int first = blockIdx.x * SPB;
  auto at = [&](int s, int offset) { return slots.at(shared, s, offset); };

  // This thread's role and rows.
  const int kSkipEnd = G::kA + G::kB + skip_threads(R, S, NSK);
  const int role = t < G::kA ? 0 : t < G::kA + G::kB ? 1 : t < kSkipEnd ? 2 : 3;
  int row = 0, part = 0, o = 0;  // role 0: dilated row, its output channel o; role 1: residual row
  bool gate_lane = false;        // role 0: the lane that forms o's gate output
  if (role == 0) {
    const int half = lane / 16, within = lane % 16;
    part = within % G::P;
    o = warp * (16 / G::P) + within / G::P;
    row = half ? o + R : o;
    gate_lane = half == 0 && part == 0;
  } else if (role == 1) {
    const int u = t - G::kA;
    part = u % G::P;
    o = row = u / G::P;
  } else if (role == 2) {
    const int v = t - G::kA - G::kB;
    part = v % G::P;
    o = v / G::P * NSK;  // the first of its NSK skip rows
  }

  if (t < SPB) st.load(p, first, t);
  __syncthreads();
  const unsigned steps = st.steps();

  // This thread's weights of one layer: 16 dilated (role 0), 8 residual (role 1) or NSK × 8 skip
  // (role 2), loaded while the thread's group waits for the other (see the file comment).
  constexpr int kW = G::KA > NSK * G::KB ? G::KA : NSK * G::KB;
  float w[kW];
  auto load_weights = [&](int layer) {
    if (role == 0) {
      const float* from =
          p.dilated + static_cast<long long>(layer) * R2 * R2 + row * R2 + part * G::KA;
#pragma unroll
      for (int i = 0; i < G::KA; i += 4) load4(w + i, from + i);
    } else if (role == 1) {
      if (layer + 1 < L) {
        const float* from =
            p.residual_weight + static_cast<long long>(layer) * R * R + row * R + part * G::KB;
#pragma unroll
        for (int i = 0; i < G::KB; i += 4) load4(w + i, from + i);
      }
    } else if (role == 2) {
#pragma unroll
      for (int j = 0; j < NSK; ++j) {
        if (o + j < S) {
          const float* from =
              p.skip_weight + static_cast<long long>(o + j) * LR + layer * R + part * G::KB;
#pragma unroll
          for (int i = 0; i < G::KB; i += 4) load4(w + j * G::KB + i, from + i);
        } else {
#pragma unroll
          for (int i = 0; i < G::KB; ++i) w[j * G::KB + i] = 0.0f;
        }
      }
    }
  };
  if (role == 0) load_weights(0);
  // Every bias, and the head's weights when they fit (the host decides), copied to shared memory
  // once per launch: read from there, they cost no L2 round trip on the serial path.
  float* const biases = shared + SPB * slots.total;
  float* const skip_bias = biases;
  float* const hidden_bias = skip_bias + S;
  float* const output_bias = hidden_bias + S;
  float* const residual_bias = output_bias + A;
  for (int i = t; i < S; i += kThreads) {
    skip_bias[i] = p.skip_bias[i];
    hidden_bias[i] = p.head_hidden_bias[i];
  }
  for (int i = t; i < A; i += kThreads) output_bias[i] = p.head_output_bias[i];
  for (int i = t; i < (L - 1) * R; i += kThreads) residual_bias[i] = p.residual_bias[i];
  const float* head_hidden = p.head_hidden;
  const float* head_output = p.head_output;
  if (p.head_in_shared) {
    float* copy = residual_bias + (L - 1) * R;
    for (int i = t; i < S * S; i += kThreads) copy[i] = p.head_hidden[i];
    for (int i = t; i < A * S; i += kThreads) copy[S * S + i] = p.head_output[i];
    head_hidden = copy;
    head_output = copy + S * S;
  }
  __syncthreads();

  for (unsigned step = 0; step < steps; ++step) {
    bool active[SPB];
#pragma unroll
    for (int s = 0; s < SPB; ++s) active[s] = step < st.limit[s];
    stage_sample_inputs<SPB, R, kThreads>(p, st, slots, shared, step, active);
    // The draw's uniform number, loaded now so that its latency passes during the layers.
    const float uniform = warp < SPB && step < st.limit[warp]
                              ? p.uniforms[static_cast<long long>(first + warp) * p.count + step]
                              : 0.0f;
    float skip_sum[NSK][SPB];
#pragma unroll
    for (int j = 0; j < NSK; ++j)
#pragma unroll
      for (int s = 0; s < SPB; ++s) skip_sum[j][s] = 0.0f;
    __syncthreads();

    int input = slots.x0, output = slots.x1;
    for (int layer = 0; layer < L; ++layer) {
      // A: the dilated convolution over [past input; input], conditioning and gate.
      if (role == 0) {
        float sum[SPB];
        const int k0 = part * G::KA;  // inputs k0 .. k0 + KA: all past, or all present
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          const float* x = k0 < R ? at(s, slots.past) + layer * R + k0 : at(s, input) + (k0 - R);
          float even = 0.0f, odd = 0.0f;
#pragma unroll
          for (int i = 0; i < G::KA; i += 2) {
            even = fmaf(w[i], x[i], even);
            odd = fmaf(w[i + 1], x[i + 1], odd);
          }
          sum[s] = even + odd;
        }
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          const float z = group_sum<G::P>(sum[s]);
          const float gate = __shfl_xor_sync(kFullMask, z, 16);  // row o + R, in the other half
          if (gate_lane) {
            const float* c = at(s, slots.conditioning) + layer * R2;
            at(s, slots.gated)[o] = tanhf(z + c[o]) * sigmoid(gate + c[o + R]);
          }
        }
      } else {
        load_weights(layer);  // groups B and K: this layer's weights, for their stage below
      }
      __syncthreads();
      // B: the residual projection; K: the skip projection; the input joins its queue; group A
      // loads the next layer's weights.
      if (role == 0) {
        if (t < R) {
#pragma unroll
          for (int s = 0; s < SPB; ++s) {
            if (active[s]) st.queue_slot(p, s, layer, step, R)[t] = at(s, input)[t];
          }
        }
        load_weights(layer + 1 < L ? layer + 1 : 0);
      } else if (role == 1 && layer + 1 < L) {
        float sum[SPB];
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          const float* g = at(s, slots.gated) + part * G::KB;
          float acc = 0.0f;
#pragma unroll
          for (int i = 0; i < G::KB; ++i) acc = fmaf(w[i], g[i], acc);
          sum[s] = acc;
        }
        const float bias = residual_bias[layer * R + row];
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          const float total = group_sum<G::P>(sum[s]);
          if (part == 0) at(s, output)[row] = at(s, input)[row] + total + bias;
        }
      } else if (role == 2) {
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          const float* g = at(s, slots.gated) + part * G::KB;
#pragma unroll
          for (int j = 0; j < NSK; ++j)
#pragma unroll
            for (int i = 0; i < G::KB; ++i)
              skip_sum[j][s] = fmaf(w[j * G::KB + i], g[i], skip_sum[j][s]);
        }
      }
      __syncthreads();
      const int swap = input;
      input = output;
      output = swap;
    }

    // The skip sums, then the head: ReLU, 1×1, ReLU, 1×1.
    if (role == 2) {
#pragma unroll
      for (int j = 0; j < NSK; ++j)
#pragma unroll
        for (int s = 0; s < SPB; ++s) {
          const float total = group_sum<G::P>(skip_sum[j][s]);
          if (part == 0 && o + j < S)
            at(s, slots.skip)[o + j] = fmaxf(total + skip_bias[o + j], 0.0f);
        }
    }
    __syncthreads();
    project_head<SPB, kThreads>(head_hidden, hidden_bias, S, S, slots, shared, slots.skip,
                                slots.hidden, true);
    project_head<SPB, kThreads>(head_output, output_bias, A, S, slots, shared, slots.hidden,
                                slots.logits, false);

    // The draw: warp s samples stream s.
    if (warp < SPB && step < st.limit[warp])
      draw_sample(p, st, slots, shared, first, warp, step, uniform);
    __syncthreads();
  }
  if (t < SPB) st.store(p, first, t);
}

// Skip rows per thread of group K so that all groups fit in one block (0 when they cannot).
int rows_per_skip_thread(int residual, int skip) {
  const int used = 3 * residual * (residual / 8);
  if (used + skip_threads(residual, skip, 1) <= kThreads) return 1;
  if (used + skip_threads(residual, skip, 2) <= kThreads) return 2;
  return 0;  // does not fit
}

template <int SPB, int R, int NSK>
void launch_rows(const WaveNetSamplingParams& params, cudaStream_t stream) {
  const std::size_t bytes =
      sizeof(float) * (SPB * wavenet_sampling_shared_floats(params.layers, params.residual,
                                                            params.skip, params.classes) +
                       wavenet_sampling_bias_floats(params) +
                       (params.head_in_shared ? wavenet_sampling_head_floats(params) : 0));
  launch_sampling_blocks<SPB>(wavenet_sampling_rows_kernel<SPB, R, NSK>, kThreads, bytes, params,
                              stream);
}

template <int SPB, int R>
void launch_rows_for_skip(const WaveNetSamplingParams& params, cudaStream_t stream) {
  if (rows_per_skip_thread(R, params.skip) == 1) return launch_rows<SPB, R, 1>(params, stream);
  return launch_rows<SPB, R, 2>(params, stream);
}

template <int SPB>
void launch_rows_for_channels(const WaveNetSamplingParams& params, cudaStream_t stream) {
  if (params.residual == 16) return launch_rows_for_skip<SPB, 16>(params, stream);
  return launch_rows_for_skip<SPB, 32>(params, stream);
}

}  // namespace

int wavenet_sampling_bias_floats(const WaveNetSamplingParams& params) {
  return 2 * params.skip + params.classes + (params.layers - 1) * params.residual;
}

int wavenet_sampling_head_floats(const WaveNetSamplingParams& params) {
  return params.skip * (params.skip + params.classes);
}

bool wavenet_sampling_rows_supports(int residual, int skip) {
  return (residual == 16 || residual == 32) && skip >= 1 &&
         rows_per_skip_thread(residual, skip) > 0;
}

void launch_wavenet_sampling_rows(const WaveNetSamplingParams& params, int streams_per_block,
                                  cudaStream_t stream) {
  if (params.streams == 0 || params.count == 0) return;
  if (!wavenet_sampling_rows_supports(params.residual, params.skip))
    throw std::invalid_argument("wavenet sampling (split rows): unsupported channel counts");
  with_streams_per_block(streams_per_block, [&](auto spb) {
    launch_rows_for_channels<decltype(spb)::value>(params, stream);
  });
}

}  // namespace tts::kernels::cuda::detail
