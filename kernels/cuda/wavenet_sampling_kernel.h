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
};

// Floats of shared memory per stream (the kernel's per-stream activations).
int wavenet_sampling_shared_floats(int layers, int residual, int skip, int classes);

// Launches ceil(streams / streams_per_block) blocks on `stream` (streams_per_block 1, 2, 4 or 8).
void launch_wavenet_sampling(const WaveNetSamplingParams& params, int streams_per_block,
                             cudaStream_t stream);

}  // namespace tts::kernels::cuda::detail
