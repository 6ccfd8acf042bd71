// Launch shape shared by the element-wise kernels (elementwise.cu, training_kernels.cu): blocks of
// kElementwiseThreads threads in grid-stride loops over all elements.
#pragma once

#include <algorithm>
#include <cstddef>

namespace tts::kernels::cuda::detail {

constexpr int kElementwiseThreads = 256;

// Enough blocks to fill any current GPU several times over; the loops stride past the rest.
inline unsigned blocks_for(std::size_t count) {
  const std::size_t blocks = (count + kElementwiseThreads - 1) / kElementwiseThreads;
  return static_cast<unsigned>(std::min<std::size_t>(std::max<std::size_t>(blocks, 1), 65535));
}

}  // namespace tts::kernels::cuda::detail
