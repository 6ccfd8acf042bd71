#include "tts/kernels/dropout.h"

#include <stdexcept>
#include <string>

#include "tts/kernels/dropout_hash.h"

namespace tts::kernels {

void dropout_mask(float rate, uint64_t seed, MatrixRef keep) {
  if (!(rate >= 0.0f && rate < 1.0f))
    throw std::invalid_argument("dropout rate must lie in [0, 1), got " + std::to_string(rate));
  const float scale = 1.0f / (1.0f - rate);
  const uint64_t stream = dropout_mix(seed);
  for (Eigen::Index col = 0; col < keep.cols(); ++col)
    for (Eigen::Index row = 0; row < keep.rows(); ++row)
      keep(row, col) =
          dropout_keep(stream, static_cast<uint64_t>(col * keep.rows() + row), rate, scale);
}

}  // namespace tts::kernels
