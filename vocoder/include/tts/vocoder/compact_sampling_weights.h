// The matrices that incremental sampling multiplies by once per sample, compacted to fp16 or int8
// (tts/kernels/compact_matrix.h): each layer's dilated convolution (its past and present halves),
// residual projection and block of the skip projection, and the output head's two matrices.
// Sampling reads every one of them for every sample; fewer bytes, and for int8 products in
// 8-bit integers, speed it up. The embedding (one column read per sample), the conditioning
// projection (one GEMM per utterance), the biases and training keep fp32.
//
// Made once per voice (SamplerSource) and shared, read-only, by all its CPU samplers.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tts/kernels/compact_matrix.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

struct CompactSamplingWeights {
  kernels::WeightPrecision precision = kernels::WeightPrecision::kFp16;
  // Per layer; `residual` has L − 1 entries (the last layer has none).
  std::vector<kernels::CompactMatrix> dilated_past, dilated_now, residual, skip;
  kernels::CompactMatrix head_hidden, head_output;
  // The bytes of them all: what one sample reads.
  std::size_t bytes() const;
};

// Compacts `weights`' sampling matrices to `precision` (kFp16 or kInt8). Throws
// std::invalid_argument naming the tensor when one cannot be (a weight beyond fp16's range).
std::shared_ptr<const CompactSamplingWeights> compact_sampling_weights(
    const WaveNetWeights& weights, kernels::WeightPrecision precision);

// The weight bytes the CPU sampler reads per sample at `precision`: those matrices (int8's padded
// to whole tiles, with their row scales), as CompactSamplingWeights::bytes() counts them, or their
// fp32 size.
std::size_t sampling_weight_bytes_per_sample(const WaveNetConfig& config,
                                             kernels::WeightPrecision precision);

}  // namespace tts::vocoder
