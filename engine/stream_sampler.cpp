#include "tts/engine/stream_sampler.h"

#include <stdexcept>

#ifdef TTS_HAVE_CUDA
#include "tts/vocoder/cuda_sampler.h"
#endif

namespace tts::engine {

#ifdef TTS_HAVE_CUDA
struct StreamSampler::Cuda {
  vocoder::CudaWaveNetSampler sampler;
};
#else
struct StreamSampler::Cuda {};  // never made: the constructor throws first
#endif

StreamSampler::StreamSampler(const vocoder::WaveNetWeights& weights, ComputeDevice device,
                             const vocoder::SamplerOptions& options)
    : weights_(weights), options_(options) {
  if (device == ComputeDevice::kCuda) {
#ifdef TTS_HAVE_CUDA
    cuda_.reset(new Cuda{vocoder::CudaWaveNetSampler(weights, 1, options)});
#else
    throw std::runtime_error("this build has no CUDA backend (configure with -DTTS_CUDA=ON)");
#endif
  }
}

StreamSampler::~StreamSampler() = default;

void StreamSampler::start(const kernels::Matrix& mel, std::uint64_t seed) {
  options_.seed = seed;
#ifdef TTS_HAVE_CUDA
  if (cuda_) {
    cuda_->sampler.reseed(0, seed);
    cuda_->sampler.start(mel);
    total_ = cuda_->sampler.total_samples();
    return;
  }
#endif
  cpu_ = std::make_unique<vocoder::WaveNetSampler>(weights_, options_);
  cpu_->start(mel);
  total_ = cpu_->total_samples();
}

std::size_t StreamSampler::generate(int32_t* out, std::size_t max) {
#ifdef TTS_HAVE_CUDA
  if (cuda_) return cuda_->sampler.generate(out, max);
#endif
  if (!cpu_) throw std::logic_error("StreamSampler::generate before start");
  return cpu_->generate(out, max);
}

}  // namespace tts::engine
