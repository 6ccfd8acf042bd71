// A WaveNet sampler, whatever device it runs on: what the engine holds. The CPU's WaveNetSampler
// (sampler.h), its many-stream MultiStreamSampler (multi_stream_sampler.h) and the GPU's
// CudaWaveNetSampler (cuda_sampler.h) implement it; make_sampler and make_multi_stream_sampler
// pick one by device. A sampler holds one or more streams; each is an utterance with its own
// position, layer queues and uniform generator. A WaveNetSampler is one stream (its worker thread
// splits that stream's work); the others may hold many, advanced together by generate_each.
//
// Both draw a stream's uniforms from the seed its start() was given, one per sample made, in
// order, so with the same seed they make the same classes except where a draw falls within
// rounding of a class boundary (the two sum in different orders).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tts/kernels/device.h"
#include "tts/kernels/tensor.h"

namespace tts::kernels {
class SamplingModel;
}

namespace tts::vocoder {

class WaveNetWeights;

struct SamplerOptions {
  uint64_t seed = 0;
  float temperature = 1.0f;  // 0 = arg-max (deterministic, usually buzzy)
  // The CPU sampler's threads, 1 or 2 (sampler.h); the audio does not depend on it, and the GPU
  // sampler ignores it.
  int threads = 1;
};

class Sampler {
 public:
  virtual ~Sampler() = default;

  // Streams held: 1 for the CPU sampler, as many as it was made with for the GPU one.
  virtual int streams() const = 0;

  // Starts an utterance on `stream`, conditioned on `mel` (mel_channels × frames, frames ≥ 2;
  // (frames − 1) · hop samples), its uniforms drawn from a generator restarted from `seed`. The
  // stream's queues and position start afresh; what lasts across utterances stays (the CPU
  // sampler's worker thread and stage timings, the GPU sampler's uploaded weights), which is why
  // a synthesis stream keeps one sampler for all its sentences. Throws std::invalid_argument for
  // a mel the vocoder does not take, std::out_of_range for a stream it does not hold.
  virtual void start(int stream, const kernels::Matrix& mel, std::uint64_t seed) = 0;

  // Up to `max` more samples of a one-stream sampler's utterance, as μ-law classes, into `out`;
  // returns how many (0 once it is done). Throws std::invalid_argument for a sampler of several
  // streams, which advance together (generate_all).
  virtual std::size_t generate(std::int32_t* out, std::size_t max) = 0;

  // Up to `max` more samples of every stream at once; `out` is streams() × max, stream-major.
  // Returns the samples made per stream (0 for a stream whose utterance is done).
  virtual std::vector<std::size_t> generate_all(std::size_t max, std::int32_t* out) = 0;

  // Up to want[s] more samples of each stream s at once (0 leaves stream s where it is); `out` is
  // streams() × stride, stream-major, stride ≥ every want[s]. Returns the samples made per stream.
  // A stream's classes depend only on its mel and seed: not on how its samples are split between
  // calls, nor on which other streams advance with it (a serving batch, engine/stream_batch.h,
  // advances each stream as far as its listener asks). Throws std::invalid_argument unless want
  // has streams() entries.
  virtual std::vector<std::size_t> generate_each(const std::vector<std::size_t>& want,
                                                 std::size_t stride, std::int32_t* out) = 0;

  // The samples of `stream`'s utterance, and those of them not yet made.
  virtual std::size_t total_samples(int stream) const = 0;
  virtual std::size_t remaining(int stream) const = 0;
};

// Gives a vocoder's weights uploaded for CUDA sampling (upload_for_cuda_sampling, cuda_sampler.h):
// a voice uploads its vocoder once and shares it with every stream.
using CudaWeightsSource = std::function<std::shared_ptr<const kernels::SamplingModel>()>;

// A one-stream sampler of `weights` (which must outlive it) on `device`: a WaveNetSampler for
// kCpu, a CudaWaveNetSampler for kCuda. The GPU one samples with `cuda_weights()`, or with weights
// uploaded here when none is given; `cuda_weights` is called for kCuda only, so a CPU sampler
// never loads the CUDA library. Throws as the chosen sampler's constructor does (for kCuda:
// std::invalid_argument in a build without the CUDA backend or for a vocoder the GPU sampler does
// not take, std::runtime_error when the library cannot be loaded or the device fails).
std::unique_ptr<Sampler> make_sampler(const WaveNetWeights& weights, kernels::Device device,
                                      const SamplerOptions& options = {},
                                      const CudaWeightsSource& cuda_weights = nullptr);

// A sampler of `streams` streams for a serving batch: a MultiStreamSampler on kCpu (each stream
// sampled as a one-stream WaveNetSampler would, options.threads threads sharing the streams), a
// CudaWaveNetSampler of `streams` streams on kCuda. Throws as make_sampler does.
std::unique_ptr<Sampler> make_multi_stream_sampler(const WaveNetWeights& weights,
                                                   kernels::Device device, int streams,
                                                   const SamplerOptions& options = {},
                                                   const CudaWeightsSource& cuda_weights = nullptr);

}  // namespace tts::vocoder
