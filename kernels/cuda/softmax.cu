// Softmax over the classes of each column, one warp per column: the fused cross-entropy loss and
// gradient of training, and the categorical sampling of generation with injected uniforms.
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>

#include "cuda_check.h"
#include "launchers.h"

namespace tts::kernels::cuda::detail {

namespace {

constexpr int kWarp = 32;
constexpr int kThreads = 256;  // 8 warps, 8 columns per block
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = kWarp / 2; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

// A butterfly sum; adding the same two operands in either order is exact in IEEE arithmetic, so
// every lane ends with the same value.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

__global__ void softmax_cross_entropy_kernel(const float* logits, const std::int32_t* targets,
                                             int classes, int columns, double* loss,
                                             float* d_logits) {
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
    float* d = d_logits + std::size_t(column) * classes;
    const float inv_n = 1.0f / static_cast<float>(columns);
    const float scale = 1.0f / (sum * static_cast<float>(columns));
    for (int k = lane; k < classes; k += kWarp)
      d[k] = expf(l[k] - max) * scale - (k == target ? inv_n : 0.0f);
  }
}

__global__ void softmax_sample_kernel(const float* logits, const float* uniforms, int classes,
                                      int columns, float temperature, std::int32_t* out) {
  const int column = static_cast<int>((blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / kWarp);
  const int lane = threadIdx.x % kWarp;
  if (column >= columns) return;  // the whole warp leaves together
  const float* l = logits + std::size_t(column) * classes;

  // Arg-max, the first index on ties (as the CPU's maxCoeff).
  float best = -INFINITY;
  int best_k = INT_MAX;
  for (int k = lane; k < classes; k += kWarp)
    if (l[k] > best || best_k == INT_MAX) best = l[k], best_k = k;
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(kFullMask, best, offset);
    const int other_k = __shfl_xor_sync(kFullMask, best_k, offset);
    if (other > best || (other == best && other_k < best_k)) best = other, best_k = other_k;
  }
  if (temperature <= 0.0f) {
    if (lane == 0) out[column] = best_k;
    return;
  }

  // Each lane owns a contiguous chunk of classes, so the cumulative sum runs in class order: a
  // serial sum within the chunk plus the scanned totals of the chunks before it.
  const float inv_t = 1.0f / temperature;
  const int chunk = (classes + kWarp - 1) / kWarp;
  const int begin = min(lane * chunk, classes), end = min(begin + chunk, classes);
  float local = 0.0f;
  for (int k = begin; k < end; ++k) local += expf((l[k] - best) * inv_t);
  const float total = __shfl_sync(kFullMask, warp_sum(local), 0);
  float inclusive = local;
  for (int offset = 1; offset < kWarp; offset <<= 1) {
    const float before = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += before;
  }
  float cumulative = __shfl_up_sync(kFullMask, inclusive, 1);
  if (lane == 0) cumulative = 0.0f;
  const float target = uniforms[column] * total;
  int found = -1, last_positive = 0;
  for (int k = begin; k < end; ++k) {
    const float p = expf((l[k] - best) * inv_t);
    if (p > 0.0f && k > 0) last_positive = k;
    cumulative += p;
    if (found < 0 && target < cumulative) found = k;
  }
  const unsigned hits = __ballot_sync(kFullMask, found >= 0);
  if (hits) {
    const int first = __shfl_sync(kFullMask, found, __ffs(hits) - 1);
    if (lane == 0) out[column] = first;
    return;
  }
  // Rounding can leave target == sum: the last class with non-zero probability (as the CPU).
  for (int offset = kWarp / 2; offset > 0; offset >>= 1)
    last_positive = max(last_positive, __shfl_xor_sync(kFullMask, last_positive, offset));
  if (lane == 0) out[column] = last_positive;
}

unsigned warp_blocks(int columns) {
  const int warps_per_block = kThreads / kWarp;
  return static_cast<unsigned>((columns + warps_per_block - 1) / warps_per_block);
}

}  // namespace

void launch_softmax_cross_entropy(const float* logits, const std::int32_t* targets, int classes,
                                  int columns, double* loss, float* d_logits, cudaStream_t stream) {
  if (columns == 0 || classes == 0) return;
  softmax_cross_entropy_kernel<<<warp_blocks(columns), kThreads, 0, stream>>>(
      logits, targets, classes, columns, loss, d_logits);
  TTS_CUDA_CHECK_LAUNCH();
}

void launch_softmax_sample(const float* logits, const float* uniforms, int classes, int columns,
                           float temperature, std::int32_t* classes_out, cudaStream_t stream) {
  if (columns == 0 || classes == 0) return;
  softmax_sample_kernel<<<warp_blocks(columns), kThreads, 0, stream>>>(
      logits, uniforms, classes, columns, temperature, classes_out);
  TTS_CUDA_CHECK_LAUNCH();
}

}  // namespace tts::kernels::cuda::detail
