// Internal: the parameters and launcher of the persistent WaveNet sampling kernel
// (wavenet_sampling.cu), shared with its host side (wavenet_sampling.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tts::kernels::cuda::detail {

constexpr int kMaxSamplingLayers = 64;

// All pointers are device pointers. Weight matrices are row-major (out × in), each row contiguous,
// so that a warp reads one row with consecutive lanes on consecutive inputs.
struct WaveNetSamplingParams {
  int layers = 0, residual = 0, skip = 0, classes = 0, hop = 0;
  int dilation[kMaxSamplingLayers] = {};
  long long queue_offset[kMaxSamplingLayers] = {};  // floats into one stream's queues
  long long queue_stride = 0;                       // floats of queues per stream

  const float* embedding = nullptr;         // R × A column-major: class c at c·R
  const float* dilated = nullptr;           // L × (2R × 2R), layer i at i·4R²
  const float* residual_weight = nullptr;   // (L-1) × (R × R)
  const float* residual_bias = nullptr;     // (L-1) × R
  const float* skip_weight = nullptr;       // S × L·R
  const float* skip_bias = nullptr;         // S
  const float* head_hidden = nullptr;       // S × S
  const float* head_hidden_bias = nullptr;  // S
  const float* head_output = nullptr;       // A × S
  const float* head_output_bias = nullptr;  // A

  int streams = 0;
  long long count = 0;                         // samples asked of each stream in this launch
  float* queues = nullptr;                     // streams × queue_stride
  const float* const* conditioning = nullptr;  // per stream: L·2R × frames, column-major
  const long long* position = nullptr;         // per stream: sample index of the first sample
  const long long* limit = nullptr;            // per stream: samples to make now (≤ count)
  std::int32_t* previous_class = nullptr;      // per stream: read at start, written at the end
  const float* uniforms = nullptr;             // streams × count
  std::int32_t* out = nullptr;                 // streams × count
  float* logits_out = nullptr;                 // streams × count × A, or null
  float temperature = 1.0f;
  bool head_in_shared = false;  // split-row kernel: copy the head's weights to shared memory
};

// Two kernels implement the same contract: the split-row kernel (wavenet_sampling_rows.cu), fast,
// for R = 16 or 32, and the warp-per-row kernel (wavenet_sampling.cu) for R = 16, 32 or 64.
bool wavenet_sampling_rows_supports(int residual, int skip);
// Floats of every bias (2S + A + (L-1)·R), held once per block by the split-row kernel.
int wavenet_sampling_bias_floats(const WaveNetSamplingParams& params);
// Floats of the head's weights (S·S + A·S), held once per block when head_in_shared.
int wavenet_sampling_head_floats(const WaveNetSamplingParams& params);
void launch_wavenet_sampling_rows(const WaveNetSamplingParams& params, int streams_per_block,
                                  cudaStream_t stream);

// Floats of shared memory per stream (the per-stream activations; the same layout in both kernels).
int wavenet_sampling_shared_floats(int layers, int residual, int skip, int classes);

// Whether the kernel is built for these channel counts (R 16, 32 or 64; S ≤ 256).
bool wavenet_sampling_supports(int residual, int skip);

// Launches ceil(streams / streams_per_block) blocks on `stream` (streams_per_block 1, 2 or 4).
void launch_wavenet_sampling(const WaveNetSamplingParams& params, int streams_per_block,
                             cudaStream_t stream);

}  // namespace tts::kernels::cuda::detail
