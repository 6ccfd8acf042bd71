// A serving batch: one many-stream sampler (vocoder/sampler_interface.h, made for the device by the
// voice's vocoder::SamplerSource) that synthesis streams join as they arrive and leave when done
// (continuous batching). One thread steps the batch: each step it starts the utterances
// members have asked for, then advances every member that is waiting for samples by at most
// step_samples in one generate call, and hands each member what it made. A member that is not
// waiting (its listener is slow) is left where it is, so it never holds the others back.
//
// A member is a one-stream Sampler (join()): the pipeline uses it as it would its own sampler
// (SynthesisOptions::batch), so each stream gets exactly the classes its own sampler would give
// with the same mel and seed (the samplers' contract), whichever streams run beside it, whenever it
// joined, and however the steps cut its samples. On the CPU that is bit for bit the audio of the
// pipeline without a batch.
//
// Fairness: every waiting member gains the same step_samples per step (or what it still wants), so
// n members each get 1/n of the batch's throughput. Capacity: the batch holds slots() members; join
// refuses beyond that, and a server sizes it so that a full batch still keeps every stream real
// time (realtime_streams below), admitting no more (serve/admission.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tts/kernels/tensor.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/sampler_source.h"

namespace tts::vocoder {
class WaveNetWeights;
}

namespace tts::engine {

class StreamBatch {
 public:
  // Steps `sampler` (of `weights`, which must outlive the batch) on a thread of its own; its
  // streams() are the batch's slots. step_samples ≥ 1. Throws std::invalid_argument for a null
  // sampler or a zero step.
  StreamBatch(const vocoder::WaveNetWeights& weights, std::unique_ptr<vocoder::Sampler> sampler,
              std::size_t step_samples = 256);
  // Stops the thread. Members may outlive the batch: their calls then throw std::runtime_error.
  ~StreamBatch();
  StreamBatch(const StreamBatch&) = delete;
  StreamBatch& operator=(const StreamBatch&) = delete;

  // A stream of the batch, as a one-stream Sampler: start() joins its utterance to the running
  // batch (before the next step), generate() waits until the batch has made what it asks for (or
  // the utterance's end), and destroying it frees the slot, at once, whatever it was doing. Null
  // when every slot is taken. Thread-safe; each member is used by one thread at a time.
  std::unique_ptr<vocoder::Sampler> try_join();

  const vocoder::WaveNetWeights& weights() const { return weights_; }
  int slots() const;
  int members() const;  // slots taken now
  int waiting() const;  // members waiting in generate() now
  std::size_t step_samples() const;

  struct Stats {
    std::uint64_t steps = 0;    // the sampler's generate calls
    std::uint64_t samples = 0;  // samples made, over all streams
    double busy_seconds = 0.0;  // spent in the sampler
    int most_members = 0;       // the most members at once
  };
  Stats stats() const;

  struct Core;  // internal; members share it with the batch

 private:
  const vocoder::WaveNetWeights& weights_;
  std::shared_ptr<Core> core_;
};

// How many streams a batch of `device` can keep each at `headroom` × real time at `sample_rate`
// Hz: the largest of 1, 2, 4, … up to max_streams whose every stream, advanced together by a
// many-stream sampler of that many streams (samplers.make_multi_stream_sampler with `options`)
// through `mel`, makes at least headroom · sample_rate samples a second. Measured, taking about
// `seconds_per_try` per count tried; 0 when even one stream is slower.
int realtime_streams(const vocoder::SamplerSource& samplers, kernels::Device device,
                     const vocoder::SamplerOptions& options, const kernels::Matrix& mel,
                     int sample_rate, double headroom, int max_streams,
                     double seconds_per_try = 0.3);

}  // namespace tts::engine
