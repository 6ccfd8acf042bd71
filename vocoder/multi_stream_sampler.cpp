#include "tts/vocoder/multi_stream_sampler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "worker_team.h"

namespace tts::vocoder {

MultiStreamSampler::MultiStreamSampler(
    const WaveNetWeights& weights, int streams, const SamplerOptions& options,
    const std::shared_ptr<const CompactSamplingWeights>& compact) {
  if (streams < 1 || streams > 65536)
    throw std::invalid_argument("MultiStreamSampler: streams must be in [1, 65536], not " +
                                std::to_string(streams));
  if (options.threads < 1 || options.threads > 256)
    throw std::invalid_argument("MultiStreamSampler: threads must be in [1, 256], not " +
                                std::to_string(options.threads));
  // One thread per stream: the team's threads already keep the cores busy, and a stream's audio
  // does not depend on its thread count.
  SamplerOptions one_stream = options;
  one_stream.threads = 1;
  for (int s = 0; s < streams; ++s) {
    one_stream.seed = options.seed + static_cast<std::uint64_t>(s);
    streams_.push_back(std::make_unique<WaveNetSampler>(weights, one_stream, compact));
  }
  team_ = std::make_unique<WorkerTeam>(std::min(options.threads, streams));
}

MultiStreamSampler::~MultiStreamSampler() = default;

WaveNetSampler& MultiStreamSampler::at(int stream) const {
  if (stream < 0 || stream >= streams())
    throw std::out_of_range("MultiStreamSampler: no stream " + std::to_string(stream) + " of " +
                            std::to_string(streams()));
  return *streams_[static_cast<std::size_t>(stream)];
}

void MultiStreamSampler::start(int stream, const kernels::Matrix& mel, std::uint64_t seed) {
  at(stream).start(0, mel, seed);
}

void MultiStreamSampler::extend(int stream, const kernels::Matrix& more) {
  at(stream).extend(0, more);
}

std::vector<std::size_t> MultiStreamSampler::generate(const std::vector<std::size_t>& want,
                                                      std::size_t stride, std::int32_t* out) {
  if (want.size() != streams_.size())
    throw std::invalid_argument("MultiStreamSampler::generate: " + std::to_string(want.size()) +
                                " counts for " + std::to_string(streams()) + " streams");
  std::vector<std::size_t> made(streams_.size(), 0);
  next_.store(0, std::memory_order_relaxed);
  team_->run([&](int) {
    // Each thread takes the next stream with work until none is left: streams of unequal
    // lengths balance across the threads.
    for (;;) {
      const int s = next_.fetch_add(1, std::memory_order_relaxed);
      if (s >= streams()) return;
      const std::size_t n = std::min(want[static_cast<std::size_t>(s)], stride);
      if (n > 0)
        made[static_cast<std::size_t>(s)] =
            streams_[static_cast<std::size_t>(s)]->generate(out + s * stride, n);
    }
  });
  return made;
}

std::size_t MultiStreamSampler::total_samples(int stream) const {
  return at(stream).total_samples(0);
}

std::size_t MultiStreamSampler::remaining(int stream) const { return at(stream).remaining(0); }

}  // namespace tts::vocoder
