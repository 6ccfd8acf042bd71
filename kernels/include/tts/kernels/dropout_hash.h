// The dropout mask's hash, shared by the CPU (kernels/cpu/dropout.cpp) and the GPU
// (kernels/cuda/acoustic_kernels.cu) so that both draw exactly the same masks: each element's keep
// factor is a pure function of (seed, its column-major index).
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define TTS_HOST_DEVICE __host__ __device__
#else
#define TTS_HOST_DEVICE
#endif

namespace tts::kernels {

// SplitMix64's finaliser: consecutive inputs give independent-looking 64-bit outputs.
TTS_HOST_DEVICE inline uint64_t dropout_mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The keep factor of element `index` of the mask drawn from stream dropout_mix(seed): 0 (dropped)
// with probability `rate`, else `scale` = 1 / (1 - rate).
TTS_HOST_DEVICE inline float dropout_keep(uint64_t stream, uint64_t index, float rate,
                                          float scale) {
  // The top 24 bits as a uniform number in [0, 1).
  const float u = static_cast<float>(dropout_mix(stream ^ index) >> 40) * 0x1p-24f;
  return u < rate ? 0.0f : scale;
}

}  // namespace tts::kernels
