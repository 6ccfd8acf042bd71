// The vocoder sampler of one synthesis stream on the chosen device: WaveNetSampler on the CPU, or
// CudaWaveNetSampler on a CUDA GPU (when the backend is built). Both draw their uniform numbers
// from the same seed, so the device changes the audio only where a draw was a near-tie.
#pragma once

#include <cstdint>
#include <memory>

#include "tts/kernels/tensor.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/weights.h"

namespace tts::engine {

enum class ComputeDevice { kCpu, kCuda };

class StreamSampler {
 public:
  // For kCuda, uploads the weights once (throws std::runtime_error when the build has no CUDA
  // backend or the device fails). options.seed is replaced by each start()'s seed.
  StreamSampler(const vocoder::WaveNetWeights& weights, ComputeDevice device,
                const vocoder::SamplerOptions& options);
  ~StreamSampler();
  StreamSampler(const StreamSampler&) = delete;
  StreamSampler& operator=(const StreamSampler&) = delete;

  // Starts an utterance, its uniforms drawn from `seed`.
  void start(const kernels::Matrix& mel, std::uint64_t seed);
  // As WaveNetSampler::generate.
  std::size_t generate(int32_t* out, std::size_t max);
  std::size_t total_samples() const { return total_; }

 private:
  const vocoder::WaveNetWeights& weights_;
  vocoder::SamplerOptions options_;
  std::unique_ptr<vocoder::WaveNetSampler> cpu_;
  struct Cuda;  // the CUDA sampler; defined only in builds with the CUDA backend
  std::unique_ptr<Cuda> cuda_;
  std::size_t total_ = 0;
};

}  // namespace tts::engine
