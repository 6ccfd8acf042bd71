// Internal: reductions in a fixed number of lanes for the ISA variants' kernel bodies (isa.h).
// Lane k takes elements k, k + 16, k + 32, ...; the lanes then combine pairwise and the tail adds
// last. The order of the additions is the source's, whatever the vector width, so the baseline,
// avx2 and avx512 variants round a sum alike (a plain loop would need reassociation to vectorise,
// which would also make the result depend on the width).
#pragma once

#include <cstddef>

#include "isa.h"

namespace tts::kernels::detail {

constexpr int kReductionLanes = 16;

TTS_ISA_INLINE float combine_lanes(float (&lane)[kReductionLanes]) {
  for (int width = kReductionLanes / 2; width > 0; width /= 2)
    for (int k = 0; k < width; ++k) lane[k] += lane[k + width];
  return lane[0];
}

// Σ x[i] over [0, n).
TTS_ISA_INLINE float lane_sum(const float* x, std::ptrdiff_t n) {
  float lane[kReductionLanes] = {};
  std::ptrdiff_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes)
    for (int k = 0; k < kReductionLanes; ++k) lane[k] += x[i + k];
  float sum = combine_lanes(lane);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

// Σ (x[i] - centre)² over [0, n).
TTS_ISA_INLINE float lane_sum_of_squares(const float* x, float centre, std::ptrdiff_t n) {
  float lane[kReductionLanes] = {};
  std::ptrdiff_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes)
    for (int k = 0; k < kReductionLanes; ++k) {
      const float d = x[i + k] - centre;
      lane[k] += d * d;
    }
  float sum = combine_lanes(lane);
  for (; i < n; ++i) {
    const float d = x[i] - centre;
    sum += d * d;
  }
  return sum;
}

// max x[i] over [0, n), n ≥ 1 (a NaN is passed over unless it comes first).
TTS_ISA_INLINE float lane_max(const float* x, std::ptrdiff_t n) {
  float lane[kReductionLanes];
  for (int k = 0; k < kReductionLanes; ++k) lane[k] = x[0];
  std::ptrdiff_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes)
    for (int k = 0; k < kReductionLanes; ++k) lane[k] = x[i + k] > lane[k] ? x[i + k] : lane[k];
  float max = lane[0];
  for (int k = 1; k < kReductionLanes; ++k) max = lane[k] > max ? lane[k] : max;
  for (; i < n; ++i) max = x[i] > max ? x[i] : max;
  return max;
}

}  // namespace tts::kernels::detail
