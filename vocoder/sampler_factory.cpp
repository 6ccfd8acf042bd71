#include "tts/vocoder/cuda_sampler.h"
#include "tts/vocoder/multi_stream_sampler.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_interface.h"

namespace tts::vocoder {

std::unique_ptr<Sampler> make_sampler(const WaveNetWeights& weights, kernels::Device device,
                                      const SamplerOptions& options,
                                      const CudaWeightsSource& cuda_weights) {
  if (device == kernels::Device::kCuda)
    return std::make_unique<CudaWaveNetSampler>(weights, 1, options, 0,
                                                cuda_weights ? cuda_weights() : nullptr);
  return std::make_unique<WaveNetSampler>(weights, options);
}

std::unique_ptr<Sampler> make_multi_stream_sampler(const WaveNetWeights& weights,
                                                   kernels::Device device, int streams,
                                                   const SamplerOptions& options,
                                                   const CudaWeightsSource& cuda_weights) {
  if (device == kernels::Device::kCuda)
    return std::make_unique<CudaWaveNetSampler>(weights, streams, options, 0,
                                                cuda_weights ? cuda_weights() : nullptr);
  return std::make_unique<MultiStreamSampler>(weights, streams, options);
}

}  // namespace tts::vocoder
