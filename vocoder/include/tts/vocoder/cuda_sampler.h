// WaveNet sampling on a CUDA GPU: the same model, maths and random numbers as WaveNetSampler
// (sampler.h), run by the persistent kernel of tts/kernels/cuda/wavenet_sampling.h, for one stream
// or for many streams at once (server throughput). It reaches the GPU through the CUDA library
// loaded on first use (tts/kernels/cuda_library.h), so it is built in every build: without the
// CUDA backend, constructing one throws std::invalid_argument saying so. Every call throws
// std::runtime_error naming the CUDA call when the device fails, and std::invalid_argument on bad
// arguments.
//
// With the same seed, a single-stream CudaWaveNetSampler draws the same uniform numbers as a
// WaveNetSampler, so it produces the same classes except where a uniform falls within rounding of
// a class boundary (the two sum in different orders); from such a sample on, the two streams
// differ. It is the GPU's Sampler (sampler_interface.h), of one stream or many.
//
// Which vocoders it samples is tts/kernels/cuda/wavenet_sampling_shape.h (up to 64 layers, 64
// residual and 256 skip channels, and one stream's activations in a block's shared memory); the
// others are refused, before the GPU is touched, with wavenet_sampling_refusal's message. A
// vocoder narrower than a kernel width (16, 32 or 64 residual channels) is sampled with zero
// channels added (pad_for_cuda_sampling), which computes the same numbers.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "tts/kernels/tensor.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/weights.h"

namespace tts::kernels {
class SamplingModel;
class SamplingBatch;
}  // namespace tts::kernels

namespace tts::vocoder {

// `weights` on the current CUDA device, for every CudaWaveNetSampler of them to share (a voice
// uploads its vocoder once, not once per stream); padded to the kernel width first when narrower.
// Throws std::invalid_argument naming the limit for a vocoder the CUDA sampler does not take.
std::shared_ptr<const kernels::SamplingModel> upload_for_cuda_sampling(
    const WaveNetWeights& weights);

// `weights` at the kernels' residual width (the smallest of 16, 32 and 64 that holds it; a copy
// when it is one already): every tensor of the added channels is zero, as are the weights that
// join them to the others, so they stay zero through every layer and add nothing to any sum; the
// padded vocoder computes the same numbers (up to the order of its sums). Pure host code. Throws
// std::invalid_argument naming the limit for a vocoder the CUDA sampler does not take.
WaveNetWeights pad_for_cuda_sampling(const WaveNetWeights& weights);

// `conditioning` (project_conditioning for a vocoder of `config`: L·2R × frames) in the layout of
// pad_for_cuda_sampling's vocoder: each layer's filter and gate rows at their padded places, zero
// rows for the added channels. Returned as it is when no padding is needed.
kernels::Matrix pad_conditioning_for_cuda_sampling(const WaveNetConfig& config,
                                                   const kernels::Matrix& conditioning);

class CudaWaveNetSampler final : public Sampler {
 public:
  // Samples with `uploaded` (upload_for_cuda_sampling of `weights`; uploaded here when null).
  // Throws std::invalid_argument naming the limit for a vocoder the CUDA sampler does not take.
  // Stream s draws its uniforms from a generator seeded with options.seed + s (so stream 0 matches
  // a WaveNetSampler with the same seed). streams_per_block: see WaveNetSamplingBatch (0 = chosen
  // from the stream count).
  CudaWaveNetSampler(const WaveNetWeights& weights, int streams = 1,
                     const SamplerOptions& options = {}, int streams_per_block = 0,
                     std::shared_ptr<const kernels::SamplingModel> uploaded = nullptr);
  ~CudaWaveNetSampler() override;
  CudaWaveNetSampler(const CudaWaveNetSampler&) = delete;
  CudaWaveNetSampler& operator=(const CudaWaveNetSampler&) = delete;

  // Restarts stream s's uniform generator from `seed` (as a WaveNetSampler constructed with it).
  void reseed(int stream, uint64_t seed) { rngs_.at(stream).seed(seed); }

  // As WaveNetSampler::start, for one stream (its generator as it was).
  void start(int stream, const kernels::Matrix& mel);
  void start(const kernels::Matrix& mel) { start(0, mel); }
  // Sampler: reseed(stream, seed), then start(stream, mel).
  void start(int stream, const kernels::Matrix& mel, uint64_t seed) override;

  // Sampler: every stream's want in one launch.
  std::vector<std::size_t> generate(const std::vector<std::size_t>& want, std::size_t stride,
                                    int32_t* out) override;

  // For comparisons with the CPU sampler, class for class (tests). Up to `max` more samples of
  // every stream in one launch, driven by `uniforms` when given (streams × max, stream-major, as
  // `out`) instead of the generators; logits_out, when given, streams × max × classes. Returns the
  // samples made per stream.
  std::vector<std::size_t> generate_all(std::size_t max, int32_t* out, const float* uniforms,
                                        float* logits_out = nullptr);
  // As WaveNetSampler::generate, for a sampler of one stream (the generator's uniforms when
  // `uniforms` is null). Throws std::invalid_argument for a sampler of several streams.
  std::size_t generate(int32_t* out, std::size_t max, const float* uniforms = nullptr,
                       kernels::Matrix* logits_out = nullptr);

  int streams() const override;
  std::size_t remaining(int stream) const override;
  std::size_t total_samples(int stream) const override { return totals_.at(stream); }
  std::size_t total_samples() const { return total_samples(0); }
  // The kernel that samples ("split-rows" or "warp-per-row"; tts/kernels/cuda/wavenet_sampling.h).
  const char* kernel_name() const;
  // Device time of the last generate's kernel.
  double last_kernel_seconds() const;

 private:
  const WaveNetWeights& weights_;
  SamplerOptions options_;
  std::unique_ptr<kernels::SamplingBatch> batch_;  // holds the uploaded weights
  bool padded_ = false;  // the kernels sample weights_ padded (pad_for_cuda_sampling)
  std::vector<std::mt19937_64> rngs_;
  std::vector<std::size_t> totals_;
  std::vector<float> uniforms_;
  std::vector<float> logits_;
};

}  // namespace tts::vocoder
