#include "tts/vocoder/sampler_source.h"

#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "tts/vocoder/cuda_sampler.h"
#include "tts/vocoder/multi_stream_sampler.h"
#include "tts/vocoder/sampler.h"

namespace tts::vocoder {

SamplerSource::SamplerSource(const WaveNetWeights& weights, kernels::WeightPrecision cpu_precision)
    : weights_(weights),
      cpu_precision_(cpu_precision),
      compact_(cpu_precision == kernels::WeightPrecision::kFp32
                   ? nullptr
                   : compact_sampling_weights(weights, cpu_precision)) {}

SamplerSource::~SamplerSource() = default;

std::string SamplerSource::refusal(kernels::Device device) const {
  if (device != kernels::Device::kCuda) return "";
  const WaveNetConfig& c = weights_.config();
  return kernels::cuda::wavenet_sampling_refusal(
      {c.layers, c.residual_channels, c.skip_channels, c.classes});
}

void SamplerSource::prepare(kernels::Device device) const {
  if (device == kernels::Device::kCuda) cuda_weights();
}

std::shared_ptr<const kernels::SamplingModel> SamplerSource::cuda_weights() const {
  std::lock_guard<std::mutex> lock(cuda_mutex_);
  if (!cuda_weights_) cuda_weights_ = upload_for_cuda_sampling(weights_);
  return cuda_weights_;
}

std::unique_ptr<Sampler> SamplerSource::make_sampler(kernels::Device device,
                                                     const SamplerOptions& options) const {
  if (device == kernels::Device::kCuda)
    return std::make_unique<CudaWaveNetSampler>(weights_, 1, options, 0, cuda_weights());
  return std::make_unique<WaveNetSampler>(weights_, options, compact_);
}

std::unique_ptr<Sampler> SamplerSource::make_multi_stream_sampler(
    kernels::Device device, int streams, const SamplerOptions& options) const {
  if (device == kernels::Device::kCuda)
    return std::make_unique<CudaWaveNetSampler>(weights_, streams, options, 0, cuda_weights());
  return std::make_unique<MultiStreamSampler>(weights_, streams, options, compact_);
}

}  // namespace tts::vocoder
