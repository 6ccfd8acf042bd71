// Where a vocoder's samplers come from on each device, and the one place that chooses between
// them: the CPU samples the weights themselves (a WaveNetSampler, or a MultiStreamSampler for
// many streams); a GPU samples them uploaded to it (a CudaWaveNetSampler), the upload made by the
// first sampler that needs it and then shared by every sampler of this source, so a voice that
// keeps one source uploads its vocoder once however many streams it serves. Callers name a device
// and get a Sampler (sampler_interface.h); nothing else of the GPU reaches them.
//
// The CPU samplers multiply by the weights as trained (fp32) or by a copy compacted to fp16 or
// int8 (compact_sampling_weights.h), made once when the source is; the GPU's always by fp32.
//
// Thread-safe: any number of threads may make samplers of one source at once. A CPU sampler
// never loads the CUDA library.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tts/kernels/compact_matrix.h"
#include "tts/kernels/device.h"
#include "tts/vocoder/compact_sampling_weights.h"
#include "tts/vocoder/sampler_interface.h"

namespace tts::kernels {
class SamplingModel;
}

namespace tts::vocoder {

class WaveNetWeights;

class SamplerSource {
 public:
  // The samplers of `weights`, which must outlive the source and every sampler it makes; the CPU's
  // multiply by them in `cpu_precision`. Throws std::invalid_argument as
  // compact_sampling_weights when they cannot be compacted.
  explicit SamplerSource(const WaveNetWeights& weights,
                         kernels::WeightPrecision cpu_precision = kernels::WeightPrecision::kFp32);
  ~SamplerSource();
  SamplerSource(const SamplerSource&) = delete;
  SamplerSource& operator=(const SamplerSource&) = delete;

  const WaveNetWeights& weights() const { return weights_; }
  // The precision of the CPU samplers' weights, and the compacted copy (null for fp32).
  kernels::WeightPrecision cpu_precision() const { return cpu_precision_; }
  const std::shared_ptr<const CompactSamplingWeights>& compact_weights() const { return compact_; }

  // Why `device`'s sampler cannot take this vocoder, naming the limit; empty when it can. Only
  // the vocoder's shape is looked at, so no device is touched and the answer is the same on every
  // machine: kCpu takes every vocoder; kCuda those within its kernels' limits. Whether the device
  // is there is kernels::require_device's question.
  std::string refusal(kernels::Device device) const;

  // Makes ready what `device`'s samplers share, so that what fails, fails now: nothing for kCpu;
  // for kCuda, the CUDA library loaded and the weights uploaded (once; a failed upload is tried
  // again by the next caller). Throws as make_sampler does.
  void prepare(kernels::Device device) const;

  // A one-stream sampler on `device`: a WaveNetSampler for kCpu, a CudaWaveNetSampler for kCuda.
  // Throws for kCuda std::invalid_argument in a build without the CUDA backend or for a vocoder
  // the GPU sampler does not take (refusal), std::runtime_error when the library cannot be loaded
  // or the device fails.
  std::unique_ptr<Sampler> make_sampler(kernels::Device device,
                                        const SamplerOptions& options = {}) const;

  // A sampler of `streams` streams for a serving batch: a MultiStreamSampler on kCpu (each stream
  // sampled as a one-stream WaveNetSampler would, options.threads threads sharing the streams), a
  // CudaWaveNetSampler of `streams` streams on kCuda. Throws as make_sampler does.
  std::unique_ptr<Sampler> make_multi_stream_sampler(kernels::Device device, int streams,
                                                     const SamplerOptions& options = {}) const;

 private:
  // The weights on the current CUDA device, uploaded by the first caller.
  std::shared_ptr<const kernels::SamplingModel> cuda_weights() const;

  const WaveNetWeights& weights_;
  kernels::WeightPrecision cpu_precision_;
  std::shared_ptr<const CompactSamplingWeights> compact_;
  mutable std::mutex cuda_mutex_;
  mutable std::shared_ptr<const kernels::SamplingModel> cuda_weights_;
};

}  // namespace tts::vocoder
