#include "tts/engine/stream_batch.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tts/vocoder/weights.h"

namespace tts::engine {

namespace {

// One slot of the batch, guarded by Core::mutex.
struct Slot {
  bool taken = false;
  // Bumped when a member leaves: what a step started before made for the old member is dropped.
  std::uint64_t generation = 0;
  bool start_pending = false;  // start() asked for; the batch thread applies it before its step
  kernels::Matrix mel;
  std::vector<kernels::Matrix> more;  // frames extend() added, applied after the start likewise
  std::uint64_t seed = 0;
  std::size_t total = 0, remaining = 0;  // of the member's utterance, as delivered to it
  std::size_t want = 0;                  // samples the waiting member asked for (0: not waiting)
  std::vector<std::int32_t> got;         // made toward `want`
  std::exception_ptr error;              // the sampler failed this stream
};

}  // namespace

struct StreamBatch::Core {
  Core(const vocoder::WaveNetWeights& w, std::unique_ptr<vocoder::Sampler> s, std::size_t step)
      : weights(w), sampler(std::move(s)), step_samples(step) {
    slots.resize(static_cast<std::size_t>(sampler->streams()));
  }

  bool has_work() const {
    for (const Slot& s : slots)
      if (s.start_pending || !s.more.empty() || (s.want > s.got.size() && !s.error)) return true;
    return false;
  }
  void run();

  const vocoder::WaveNetWeights& weights;
  std::unique_ptr<vocoder::Sampler> sampler;  // used by the batch thread only
  const std::size_t step_samples;
  mutable std::mutex mutex;
  std::condition_variable work, delivered;
  std::vector<Slot> slots;
  int members = 0;
  bool stopping = false;
  Stats stats;
  std::thread thread;  // joined by ~StreamBatch
};

void StreamBatch::Core::run() {
  const std::size_t n = slots.size();
  std::vector<std::int32_t> buffer(n * step_samples);
  struct Start {  // a start, or frames added, or both
    std::size_t slot;
    std::uint64_t generation;
    bool starts;
    kernels::Matrix mel;
    std::uint64_t seed;
    std::vector<kernels::Matrix> more;
    std::exception_ptr error;
  };
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    work.wait(lock, [&] { return stopping || has_work(); });
    if (stopping) return;
    std::vector<Start> starts;
    std::vector<std::size_t> want(n, 0);
    std::vector<std::uint64_t> generation(n);
    bool any = false;
    for (std::size_t s = 0; s < n; ++s) {
      Slot& slot = slots[s];
      generation[s] = slot.generation;
      if (slot.start_pending || !slot.more.empty()) {
        starts.push_back({s, slot.generation, slot.start_pending, std::move(slot.mel), slot.seed,
                          std::move(slot.more), nullptr});
        slot.start_pending = false;
        slot.more.clear();
      }
      if (slot.want > slot.got.size() && !slot.error) {
        want[s] = std::min(step_samples, slot.want - slot.got.size());
        any = true;
      }
    }
    lock.unlock();
    for (Start& start : starts) try {
        if (start.starts) sampler->start(static_cast<int>(start.slot), start.mel, start.seed);
        for (const kernels::Matrix& more : start.more)
          sampler->extend(static_cast<int>(start.slot), more);
      } catch (...) {
        start.error = std::current_exception();
      }
    std::vector<std::size_t> made(n, 0);
    std::exception_ptr step_error;
    double seconds = 0.0;
    if (any) try {
        const auto began = std::chrono::steady_clock::now();
        made = sampler->generate(want, step_samples, buffer.data());
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      } catch (...) {
        step_error = std::current_exception();
      }
    lock.lock();
    for (const Start& start : starts)
      if (start.error && slots[start.slot].generation == start.generation)
        slots[start.slot].error = start.error;
    for (std::size_t s = 0; s < n; ++s) {
      Slot& slot = slots[s];
      if (want[s] == 0 || slot.generation != generation[s] || slot.error) continue;
      if (step_error) {
        slot.error = step_error;
        continue;
      }
      const std::int32_t* from = buffer.data() + s * step_samples;
      slot.got.insert(slot.got.end(), from, from + made[s]);
      stats.samples += made[s];
      // The utterance ended sooner than its member counted: it gets what there is.
      if (made[s] < want[s]) slot.want = slot.got.size();
    }
    if (any) {
      ++stats.steps;
      stats.busy_seconds += seconds;
    }
    delivered.notify_all();
  }
}

namespace {

class Member final : public vocoder::Sampler {
 public:
  Member(std::shared_ptr<StreamBatch::Core> core, std::size_t slot)
      : core_(std::move(core)), index_(slot) {}
  ~Member() override {
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      Slot& slot = core_->slots[index_];
      slot.taken = false;
      ++slot.generation;
      slot.start_pending = false;
      slot.mel.resize(0, 0);
      slot.more.clear();
      slot.want = slot.total = slot.remaining = 0;
      slot.got.clear();
      slot.error = nullptr;
      --core_->members;
    }
  }

  int streams() const override { return 1; }

  void start(int stream, const kernels::Matrix& mel, std::uint64_t seed) override {
    check_stream(stream);
    check_frames(mel, 2);
    const vocoder::WaveNetConfig& c = core_->weights.config();
    std::lock_guard<std::mutex> lock(core_->mutex);
    if (core_->stopping) throw std::runtime_error("the serving batch has stopped");
    Slot& slot = core_->slots[index_];
    slot.start_pending = true;
    slot.mel = mel;
    slot.more.clear();
    slot.seed = seed;
    slot.total = slot.remaining = static_cast<std::size_t>(mel.cols() - 1) * c.hop_length;
    slot.error = nullptr;
    core_->work.notify_one();
  }

  bool takes_frames_in_parts() const override { return core_->sampler->takes_frames_in_parts(); }

  void extend(int stream, const kernels::Matrix& more) override {
    check_stream(stream);
    if (!takes_frames_in_parts()) vocoder::Sampler::extend(stream, more);  // throws
    check_frames(more, 1);
    const vocoder::WaveNetConfig& c = core_->weights.config();
    std::lock_guard<std::mutex> lock(core_->mutex);
    if (core_->stopping) throw std::runtime_error("the serving batch has stopped");
    Slot& slot = core_->slots[index_];
    slot.more.push_back(more);
    const std::size_t samples = static_cast<std::size_t>(more.cols()) * c.hop_length;
    slot.total += samples;
    slot.remaining += samples;
    core_->work.notify_one();
  }

  std::vector<std::size_t> generate(const std::vector<std::size_t>& want, std::size_t stride,
                                    std::int32_t* out) override {
    if (want.size() != 1)
      throw std::invalid_argument("a batch member is one stream; generate got " +
                                  std::to_string(want.size()) + " counts");
    return {wait_for(out, std::min(want[0], stride))};
  }
  std::size_t total_samples(int stream) const override {
    check_stream(stream);
    std::lock_guard<std::mutex> lock(core_->mutex);
    return core_->slots[index_].total;
  }
  std::size_t remaining(int stream) const override {
    check_stream(stream);
    std::lock_guard<std::mutex> lock(core_->mutex);
    return core_->slots[index_].remaining;
  }

 private:
  // The checks the sampler's start() and extend() make, here, so that bad frames throw now, in
  // the member's thread, not later in the batch's.
  void check_frames(const kernels::Matrix& mel, Eigen::Index least) const {
    const int channels = core_->weights.config().mel_channels;
    if (mel.rows() != channels)
      throw std::invalid_argument("vocoder: mel has " + std::to_string(mel.rows()) +
                                  " channels, the model expects " + std::to_string(channels));
    if (mel.cols() < least)
      throw std::invalid_argument("vocoder: need at least " + std::to_string(least) + " mel frame" +
                                  (least == 1 ? "" : "s"));
  }
  static void check_stream(int stream) {
    if (stream != 0)
      throw std::out_of_range("a batch member has one stream, 0, not " + std::to_string(stream));
  }
  // Asks the batch for up to `max` more samples and waits until it has made them (or the
  // utterance's end); returns how many it copied to `out`.
  std::size_t wait_for(std::int32_t* out, std::size_t max) {
    std::unique_lock<std::mutex> lock(core_->mutex);
    Slot& slot = core_->slots[index_];
    const std::size_t count = std::min(max, slot.remaining);
    if (slot.error) std::rethrow_exception(slot.error);
    if (count == 0) return 0;
    if (core_->stopping) throw std::runtime_error("the serving batch has stopped");
    slot.want = count;
    slot.got.clear();
    core_->work.notify_one();
    core_->delivered.wait(
        lock, [&] { return core_->stopping || slot.error || slot.got.size() >= slot.want; });
    slot.want = 0;
    if (slot.error) std::rethrow_exception(slot.error);
    if (slot.got.size() < count && core_->stopping)
      throw std::runtime_error("the serving batch has stopped");
    const std::size_t made = slot.got.size();
    std::copy(slot.got.begin(), slot.got.end(), out);
    slot.got.clear();
    slot.remaining -= made;
    return made;
  }

  std::shared_ptr<StreamBatch::Core> core_;
  std::size_t index_;
};

}  // namespace

StreamBatch::StreamBatch(const vocoder::WaveNetWeights& weights,
                         std::unique_ptr<vocoder::Sampler> sampler, std::size_t step_samples)
    : weights_(weights) {
  if (!sampler) throw std::invalid_argument("StreamBatch: no sampler");
  if (step_samples == 0)
    throw std::invalid_argument("StreamBatch: step_samples must be at least 1");
  core_ = std::make_shared<Core>(weights, std::move(sampler), step_samples);
  core_->thread = std::thread([core = core_.get()] { core->run(); });
}

StreamBatch::~StreamBatch() {
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    core_->stopping = true;
  }
  core_->work.notify_all();
  core_->delivered.notify_all();
  core_->thread.join();
}

std::unique_ptr<vocoder::Sampler> StreamBatch::try_join() {
  std::lock_guard<std::mutex> lock(core_->mutex);
  if (core_->stopping) return nullptr;
  for (std::size_t s = 0; s < core_->slots.size(); ++s) {
    Slot& slot = core_->slots[s];
    if (slot.taken) continue;
    slot.taken = true;
    ++core_->members;
    core_->stats.most_members = std::max(core_->stats.most_members, core_->members);
    return std::make_unique<Member>(core_, s);
  }
  return nullptr;
}

int StreamBatch::slots() const { return static_cast<int>(core_->slots.size()); }

int StreamBatch::members() const {
  std::lock_guard<std::mutex> lock(core_->mutex);
  return core_->members;
}

int StreamBatch::waiting() const {
  std::lock_guard<std::mutex> lock(core_->mutex);
  int n = 0;
  for (const Slot& slot : core_->slots) n += slot.want > 0;
  return n;
}

std::size_t StreamBatch::step_samples() const { return core_->step_samples; }

StreamBatch::Stats StreamBatch::stats() const {
  std::lock_guard<std::mutex> lock(core_->mutex);
  return core_->stats;
}

int realtime_streams(const vocoder::SamplerSource& samplers, kernels::Device device,
                     const vocoder::SamplerOptions& options, const kernels::Matrix& mel,
                     int sample_rate, double headroom, int max_streams, double seconds_per_try) {
  if (sample_rate < 1 || !(headroom > 0.0) || max_streams < 1)
    throw std::invalid_argument(
        "realtime_streams: sample rate, headroom and streams must be positive");
  const double needed = headroom * sample_rate;
  // Samples a second each of `n` streams makes, advanced together through `mel` (restarted when
  // it ends) for about seconds_per_try.
  auto rate = [&](int n) {
    auto sampler = samplers.make_multi_stream_sampler(device, n, options);
    for (int s = 0; s < n; ++s)
      sampler->start(s, mel, options.seed + static_cast<std::uint64_t>(s));
    const std::size_t step = 256;
    const std::vector<std::size_t> want(static_cast<std::size_t>(n), step);
    std::vector<std::int32_t> out(static_cast<std::size_t>(n) * step);
    std::size_t made = 0;
    const auto began = std::chrono::steady_clock::now();
    double elapsed = 0.0;
    while (elapsed < seconds_per_try) {
      if (sampler->remaining(0) == 0)
        for (int s = 0; s < n; ++s) sampler->start(s, mel, options.seed);
      made += sampler->generate(want, step, out.data()).at(0);
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    }
    return static_cast<double>(made) / elapsed;
  };
  int good = 0, bad = 0;  // the most streams known real time, the fewest known not
  for (int n = 1;; n = std::min(2 * n, max_streams)) {
    if (rate(n) < needed) {
      bad = n;
      break;
    }
    good = n;
    if (n == max_streams) break;
  }
  if (bad == 0) return good;                          // max_streams keeps up
  while (bad - good > 1 && bad - good > good / 16) {  // to within 1/16
    const int mid = good + (bad - good) / 2;
    if (rate(mid) >= needed)
      good = mid;
    else
      bad = mid;
  }
  return good;
}

}  // namespace tts::engine
