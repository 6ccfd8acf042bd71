#include "tts/engine/stream_sampler.h"

#include <stdexcept>

namespace tts::engine {

StreamSampler::StreamSampler(const Voice& voice, kernels::Device device,
                             const vocoder::SamplerOptions& options) {
  const vocoder::WaveNetWeights& weights = *voice.vocoder().weights;
  if (device == kernels::Device::kCuda)
    cuda_ =
        std::make_unique<vocoder::CudaWaveNetSampler>(weights, 1, options, 0, voice.cuda_vocoder());
  else
    cpu_ = std::make_unique<vocoder::WaveNetSampler>(weights, options);
}

void StreamSampler::start(const kernels::Matrix& mel, std::uint64_t seed) {
  if (cuda_) {
    cuda_->reseed(0, seed);
    cuda_->start(mel);
    total_ = cuda_->total_samples();
  } else {
    cpu_->reseed(seed);
    cpu_->start(mel);
    total_ = cpu_->total_samples();
  }
  started_ = true;
}

std::size_t StreamSampler::generate(int32_t* out, std::size_t max) {
  if (!started_) throw std::logic_error("StreamSampler::generate before start");
  return cuda_ ? cuda_->generate(out, max) : cpu_->generate(out, max);
}

}  // namespace tts::engine
