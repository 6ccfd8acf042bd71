// The vocoder sampler of one synthesis stream on the chosen device: WaveNetSampler on the CPU, or
// CudaWaveNetSampler on a CUDA GPU. Both draw their uniform numbers from the same seed, so the
// device changes the audio only where a draw was a near-tie. One sampler serves every sentence of
// the stream, reseeded per sentence: the CPU sampler keeps its worker thread and stage timings,
// and the GPU one samples with the voice's weights uploaded once (Voice::cuda_vocoder).
#pragma once

#include <cstdint>
#include <memory>

#include "tts/engine/voice.h"
#include "tts/kernels/device.h"
#include "tts/kernels/tensor.h"
#include "tts/vocoder/cuda_sampler.h"
#include "tts/vocoder/sampler.h"

namespace tts::engine {

class StreamSampler {
 public:
  // For kCuda, uploads the voice's vocoder if no stream has yet (throws std::invalid_argument when
  // the build has no CUDA backend, std::runtime_error when it cannot be loaded or the device
  // fails). options.seed is replaced by each start()'s seed.
  StreamSampler(const Voice& voice, kernels::Device device, const vocoder::SamplerOptions& options);

  // Starts an utterance, its uniforms drawn from `seed`.
  void start(const kernels::Matrix& mel, std::uint64_t seed);
  // As WaveNetSampler::generate.
  std::size_t generate(int32_t* out, std::size_t max);
  std::size_t total_samples() const { return total_; }

 private:
  std::unique_ptr<vocoder::WaveNetSampler> cpu_;
  std::unique_ptr<vocoder::CudaWaveNetSampler> cuda_;
  bool started_ = false;
  std::size_t total_ = 0;
};

}  // namespace tts::engine
