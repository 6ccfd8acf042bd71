// Many synthesis streams on the CPU behind one Sampler (sampler_interface.h), for a serving batch
// (engine/stream_batch.h): each stream is a one-stream WaveNetSampler of its own, and a team of
// `threads` threads shares the streams of each generate call, each stream sampled whole by
// one thread. A stream's classes are exactly those of a WaveNetSampler started with the same mel
// and seed, however the streams are split between threads or calls.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

class WorkerTeam;

class MultiStreamSampler final : public Sampler {
 public:
  // `streams` ≥ 1 streams of `weights` (which must outlive the sampler); options.threads (1 to
  // 256) threads share them; each samples `compact` when given (WaveNetSampler). Throws
  // std::invalid_argument for a count out of range.
  MultiStreamSampler(const WaveNetWeights& weights, int streams, const SamplerOptions& options = {},
                     const std::shared_ptr<const CompactSamplingWeights>& compact = nullptr);
  ~MultiStreamSampler() override;
  MultiStreamSampler(const MultiStreamSampler&) = delete;
  MultiStreamSampler& operator=(const MultiStreamSampler&) = delete;

  int streams() const override { return static_cast<int>(streams_.size()); }
  void start(int stream, const kernels::Matrix& mel, std::uint64_t seed) override;
  std::vector<std::size_t> generate(const std::vector<std::size_t>& want, std::size_t stride,
                                    std::int32_t* out) override;
  std::size_t total_samples(int stream) const override;
  std::size_t remaining(int stream) const override;
  bool takes_frames_in_parts() const override { return true; }
  void extend(int stream, const kernels::Matrix& more) override;

 private:
  WaveNetSampler& at(int stream) const;

  std::vector<std::unique_ptr<WaveNetSampler>> streams_;
  std::unique_ptr<WorkerTeam> team_;
  std::atomic<int> next_{0};  // the next stream a thread of the team takes, within one call
};

}  // namespace tts::vocoder
