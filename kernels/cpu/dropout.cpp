#include "tts/kernels/dropout.h"

#include <stdexcept>
#include <string>

namespace tts::kernels {

namespace {

// SplitMix64's finaliser: consecutive inputs give independent-looking 64-bit outputs.
uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

void dropout_mask(float rate, uint64_t seed, MatrixRef keep) {
  if (!(rate >= 0.0f && rate < 1.0f))
    throw std::invalid_argument("dropout rate must lie in [0, 1), got " + std::to_string(rate));
  const float scale = 1.0f / (1.0f - rate);
  const uint64_t stream = mix(seed);
  for (Eigen::Index col = 0; col < keep.cols(); ++col)
    for (Eigen::Index row = 0; row < keep.rows(); ++row) {
      const auto index = static_cast<uint64_t>(col * keep.rows() + row);
      // The top 24 bits as a uniform number in [0, 1).
      const float u = static_cast<float>(mix(stream ^ index) >> 40) * 0x1p-24f;
      keep(row, col) = u < rate ? 0.0f : scale;
    }
}

}  // namespace tts::kernels
