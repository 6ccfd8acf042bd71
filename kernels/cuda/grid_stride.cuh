// Launch shape shared by the element-wise kernels (elementwise.cu, training_kernels.cu,
// acoustic_kernels.cu): blocks of kElementwiseThreads threads in grid-stride loops over all
// elements.
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

inline unsigned element_blocks(int rows, int cols) {
  return blocks_for(std::size_t(rows) * std::size_t(cols));
}

// Calls f(row, column) for every element of a rows × cols matrix, rows fastest, so that
// neighbouring threads touch neighbouring addresses of a column-major matrix.
// Below 2^31 elements (every training step so far) the index arithmetic is 32-bit: a 64-bit
// division and remainder per element cost more than the element's memory traffic.
template <typename F>
__device__ __forceinline__ void for_each_element(int rows, int cols, F f) {
  const std::size_t count = std::size_t(rows) * std::size_t(cols);
  if (count < (std::size_t{1} << 31)) {  // i + stride then stays below 2^32
    const unsigned n = static_cast<unsigned>(count), r = static_cast<unsigned>(rows);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      f(static_cast<int>(i % r), static_cast<std::size_t>(i / r));
    return;
  }
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    f(static_cast<int>(i % rows), static_cast<std::size_t>(i / rows));
}

}  // namespace tts::kernels::cuda::detail
