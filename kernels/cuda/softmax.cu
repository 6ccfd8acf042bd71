// The fused softmax cross-entropy loss and gradient of training over the classes of each column,
// one warp per column.
#include <cmath>
#include <cstdint>

#include "cuda_check.h"
#include "element_store.cuh"
#include "launchers.h"
#include "warp_softmax.cuh"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kThreads = 256;  // 8 warps, 8 columns per block

template <typename T>
__global__ void softmax_cross_entropy_kernel(const float* logits, const std::int32_t* targets,
                                             int classes, int columns, double* loss, T* d_logits) {
  const int column = static_cast<int>((blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / kWarp);
  const int lane = threadIdx.x % kWarp;
  if (column >= columns) return;  // the whole warp leaves together
  const float* l = logits + std::size_t(column) * classes;
  float max = -INFINITY;
  for (int k = lane; k < classes; k += kWarp) max = fmaxf(max, l[k]);
  max = warp_max(max);
  float sum = 0.0f;
  for (int k = lane; k < classes; k += kWarp) sum += expf(l[k] - max);
  sum = warp_sum(sum);
  const int target = targets[column];
  if (lane == 0)
    loss[column] = log(static_cast<double>(sum)) - static_cast<double>(l[target] - max);
  if (d_logits) {
    T* d = d_logits + std::size_t(column) * classes;
    const float inv_n = 1.0f / static_cast<float>(columns);
    const float scale = 1.0f / (sum * static_cast<float>(columns));
    for (int k = lane; k < classes; k += kWarp)
      store(d + k, expf(l[k] - max) * scale - (k == target ? inv_n : 0.0f));
  }
}

unsigned warp_blocks(int columns) {
  const int warps_per_block = kThreads / kWarp;
  return static_cast<unsigned>((columns + warps_per_block - 1) / warps_per_block);
}

}  // namespace

void launch_softmax_cross_entropy(const float* logits, const std::int32_t* targets, int classes,
                                  int columns, double* loss, void* d_logits,
                                  Element d_logits_element, cudaStream_t stream) {
  if (columns == 0 || classes == 0) return;
  with_element_type(d_logits_element, [&](auto tag) {
    using T = decltype(tag);
    softmax_cross_entropy_kernel<T><<<warp_blocks(columns), kThreads, 0, stream>>>(
        logits, targets, classes, columns, loss, static_cast<T*>(d_logits));
  });
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace tts::kernels::cuda::detail
