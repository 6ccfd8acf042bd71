// Host views of a WaveNet's weights, as a device sampler takes them (tts/kernels/cuda_library.h,
// tts/kernels/cuda/wavenet_sampling.h). Column-major (Eigen's layout), matrices out × in; the
// arrays belong to the caller and are copied by the upload.
#pragma once

#include <vector>

namespace tts::kernels {

struct WaveNetSamplingWeights {
  int layers = 0, residual = 0, skip = 0, classes = 0, hop = 0;
  std::vector<int> dilations;                 // one per layer
  const float* embedding = nullptr;           // R × A
  std::vector<const float*> dilated;          // L × (2R × 2R) [W_past W_now]
  std::vector<const float*> residual_weight;  // (L-1) × (R × R)
  std::vector<const float*> residual_bias;    // (L-1) × R
  const float* skip_weight = nullptr;         // S × L·R
  const float* skip_bias = nullptr;           // S
  const float* head_hidden = nullptr;         // S × S
  const float* head_hidden_bias = nullptr;    // S
  const float* head_output = nullptr;         // A × S
  const float* head_output_bias = nullptr;    // A
};

}  // namespace tts::kernels
