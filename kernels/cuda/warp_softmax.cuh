// Device helpers shared by the kernels that work on one column of logits with one warp: butterfly
// max and sum, and categorical sampling with an injected uniform number by the CPU's convention
// (tts::kernels::softmax_sample). Used by softmax.cu (max and sum) and the sampling kernels.
#pragma once

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>

namespace tts::kernels::cuda::detail {

constexpr int kWarp = 32;
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

// The class drawn from softmax(l / temperature) at `uniform` (arg-max, first index on ties, when
// temperature <= 0): the first k with uniform·Σp < Σ_{j≤k} p_j, else the last class with non-zero
// probability. Called by all 32 lanes of a warp; every lane returns the class.
__device__ __forceinline__ std::int32_t warp_softmax_sample(const float* l, int classes,
                                                            float temperature, float uniform,
                                                            int lane) {
  float best = -INFINITY;
  int best_k = INT_MAX;
  for (int k = lane; k < classes; k += kWarp)
    if (l[k] > best || best_k == INT_MAX) best = l[k], best_k = k;
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(kFullMask, best, offset);
    const int other_k = __shfl_xor_sync(kFullMask, best_k, offset);
    if (other > best || (other == best && other_k < best_k)) best = other, best_k = other_k;
  }
  if (temperature <= 0.0f) return best_k;

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
  const float target = uniform * total;
  int found = -1, last_positive = 0;
  for (int k = begin; k < end; ++k) {
    const float p = expf((l[k] - best) * inv_t);
    if (p > 0.0f && k > 0) last_positive = k;
    cumulative += p;
    if (found < 0 && target < cumulative) found = k;
  }
  const unsigned hits = __ballot_sync(kFullMask, found >= 0);
  if (hits) return __shfl_sync(kFullMask, found, __ffs(hits) - 1);
  // Rounding can leave target == sum: the last class with non-zero probability (as the CPU).
  for (int offset = kWarp / 2; offset > 0; offset >>= 1)
    last_positive = max(last_positive, __shfl_xor_sync(kFullMask, last_positive, offset));
  return last_positive;
}

}  // namespace tts::kernels::cuda::detail
