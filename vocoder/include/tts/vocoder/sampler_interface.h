// A WaveNet sampler, whatever device it runs on: what the engine holds. The CPU's WaveNetSampler
// (sampler.h), its many-stream MultiStreamSampler (multi_stream_sampler.h) and the GPU's
// CudaWaveNetSampler (cuda_sampler.h) implement it; a SamplerSource (sampler_source.h) picks one
// by device. A sampler holds one or more streams; each is an utterance with its own position,
// layer queues and uniform generator. A WaveNetSampler is one stream (its worker thread splits
// that stream's work); the others may hold many, advanced together.
//
// Both draw a stream's uniforms from the seed its start() was given, one per sample made, in
// order, so with the same seed they make the same classes except where a draw falls within
// rounding of a class boundary (the two sum in different orders).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::vocoder {

struct SamplerOptions {
  uint64_t seed = 0;
  float temperature = 1.0f;  // 0 = arg-max (deterministic, usually buzzy)
  // The CPU sampler's threads, 1 or 2 (sampler.h); the audio does not depend on it, and the GPU
  // sampler ignores it. A many-stream CPU sampler shares its streams among this many threads.
  int threads = 1;
};

class Sampler {
 public:
  virtual ~Sampler() = default;

  // Streams held: 1 for the CPU sampler, as many as it was made with for the others.
  virtual int streams() const = 0;

  // Starts an utterance on `stream`, conditioned on `mel` (mel_channels × frames, frames ≥ 2;
  // (frames − 1) · hop samples), its uniforms drawn from a generator restarted from `seed`. The
  // stream's queues and position start afresh; what lasts across utterances stays (the CPU
  // sampler's worker thread and stage timings, the GPU sampler's uploaded weights), which is why
  // a synthesis stream keeps one sampler for all its sentences. Throws std::invalid_argument for
  // a mel the vocoder does not take, std::out_of_range for a stream it does not hold.
  virtual void start(int stream, const kernels::Matrix& mel, std::uint64_t seed) = 0;

  // Whether extend() works: a stream can start on a sentence's first frames and take the rest as
  // they are decoded. The CPU samplers can; the GPU's cannot, and is started on whole sentences.
  virtual bool takes_frames_in_parts() const { return false; }

  // Appends `more` (mel_channels × frames, frames ≥ 1) to the frames `stream`'s utterance was
  // started on: frames.cols() · hop more samples. The audio is the same as if start() had been
  // given all the frames at once. A stream whose generate() made 0 samples was waiting for these.
  // Throws std::logic_error where takes_frames_in_parts() is false, std::invalid_argument for a mel
  // the vocoder does not take.
  virtual void extend(int stream, const kernels::Matrix& more);

  // The one way to advance a sampler: up to want[s] more samples of each stream s, as μ-law
  // classes (0 leaves stream s where it is); `out` is streams() × stride, stream-major, and a
  // stream makes at most `stride`. Returns the samples made per stream (0 for a stream whose
  // utterance is done). A one-stream caller passes {max}, max. A stream's classes depend only on
  // its mel and seed: not on how its samples are split between calls, nor on which other streams
  // advance with it (a serving batch, engine/stream_batch.h, advances each stream as far as its
  // listener asks). Throws std::invalid_argument unless want has streams() entries.
  virtual std::vector<std::size_t> generate(const std::vector<std::size_t>& want,
                                            std::size_t stride, std::int32_t* out) = 0;

  // The samples of `stream`'s utterance, and those of them not yet made.
  virtual std::size_t total_samples(int stream) const = 0;
  virtual std::size_t remaining(int stream) const = 0;
};

}  // namespace tts::vocoder
