#include "tts/audio/playback.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>

#include "portaudio_device.h"
#include "tts/audio/ring_buffer.h"

namespace tts::audio {

using Clock = std::chrono::steady_clock;

// The callback shares only these atomics and the ring buffer with the producer; a lock there
// could stall the audio thread behind a descheduled producer.
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

struct PlaybackSink::Impl {
  Impl(int rate, const PlaybackOptions& opts)
      : sample_rate(rate),
        options(opts),
        ring(static_cast<std::size_t>(std::ceil(std::max(opts.buffer_seconds, 0.05) * rate))),
        // Start the device only once a quarter of the buffer is queued, so that a producer that
        // is just getting going does not cause an underrun on the very first callback.
        start_threshold(ring.capacity() / 4) {}

  static int callback(const void* /*input*/, void* output, unsigned long frames,
                      const PaStreamCallbackTimeInfo* /*time*/, PaStreamCallbackFlags /*flags*/,
                      void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    auto* out = static_cast<float*>(output);
    std::size_t got = self->ring.pop(out, frames);
    if (got < frames) {
      std::fill(out + got, out + frames, 0.0f);
      // Running short at the end of a drain is expected, not an underrun.
      if (!self->draining.load(std::memory_order_relaxed))
        self->underruns.fetch_add(1, std::memory_order_relaxed);
    }
    if (self->device.channels == 2) {
      // Widen mono to interleaved stereo in place, back to front so nothing is overwritten early.
      for (unsigned long i = frames; i-- > 0;) out[2 * i] = out[2 * i + 1] = out[i];
    }
    self->played.fetch_add(got, std::memory_order_release);
    return paContinue;
  }

  void start() {
    PaError err = detail::quietly(&Pa_StartStream, device.stream);
    if (err != paNoError)
      throw AudioError("cannot start audio output on \"" + device.device +
                       "\": " + Pa_GetErrorText(err));
    running = true;
  }

  // Waits (producer side only) until `done()` holds. Fails if the device stops taking samples for
  // longer than the stall timeout plus however long `ahead` samples take to play.
  template <typename Done>
  void wait_for_device(Done done, std::size_t ahead, const char* what) {
    const auto slack =
        options.stall_timeout + std::chrono::milliseconds(1000 * ahead / sample_rate);
    // A short sleep keeps the producer responsive without spinning: an eighth of the buffer
    // plays in that time, far more than one callback's worth of room.
    const auto nap = std::chrono::microseconds(std::clamp<long long>(
        125000LL * static_cast<long long>(ring.capacity()) / sample_rate, 500, 20000));
    std::uint64_t last = played.load(std::memory_order_acquire);
    auto last_progress = Clock::now();
    while (!done()) {
      std::this_thread::sleep_for(nap);
      std::uint64_t now_played = played.load(std::memory_order_acquire);
      if (now_played != last) {
        last = now_played;
        last_progress = Clock::now();
      } else if (Clock::now() - last_progress > slack || Pa_IsStreamActive(device.stream) != 1) {
        detail::quietly(&Pa_AbortStream, device.stream);
        running = false;
        throw AudioError(std::string("audio output device \"") + device.device +
                         "\" stopped playing while " + what);
      }
    }
  }

  const int sample_rate;
  const PlaybackOptions options;
  SpscRingBuffer ring;
  const std::size_t start_threshold;
  detail::OutputStream device;
  bool running = false;       // producer's view: stream started and not stopped
  std::uint64_t written = 0;  // samples pushed by the producer
  std::atomic<std::uint64_t> played{0};
  std::atomic<std::uint64_t> underruns{0};
  std::atomic<bool> draining{false};
};

PlaybackSink::PlaybackSink(int sample_rate, PlaybackOptions options) {
  if (sample_rate <= 0)
    throw AudioError("playback: sample rate must be positive (got " + std::to_string(sample_rate) +
                     ")");
  impl_ = std::make_unique<Impl>(sample_rate, options);
  impl_->device =
      detail::open_default_output(sample_rate, &Impl::callback, impl_.get(), options.open_timeout);
}

PlaybackSink::~PlaybackSink() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; close() only fails if the device is already gone.
  }
}

void PlaybackSink::write(const float* samples, std::size_t count) {
  Impl& s = *impl_;
  if (!s.device.stream) throw AudioError("playback: write() after close()");
  s.draining.store(false, std::memory_order_relaxed);
  while (count > 0) {
    std::size_t n = s.ring.push(samples, count);
    samples += n;
    count -= n;
    s.written += n;
    if (!s.running && (count > 0 || s.ring.size() >= s.start_threshold)) s.start();
    if (count > 0) {
      // Full: only this (producer) thread waits, for the callback to make room.
      s.wait_for_device([&] { return s.ring.space() > 0; }, s.ring.capacity(), "queueing audio");
    }
  }
}

void PlaybackSink::drain() {
  Impl& s = *impl_;
  if (!s.device.stream) return;
  s.draining.store(true, std::memory_order_relaxed);
  if (!s.running && s.ring.size() > 0) s.start();
  if (!s.running) return;
  s.wait_for_device([&] { return s.played.load(std::memory_order_acquire) >= s.written; },
                    s.ring.size(), "draining");
  // Everything is in PortAudio's buffers now; Pa_StopStream returns once those have played.
  PaError err = detail::quietly(&Pa_StopStream, s.device.stream);
  s.running = false;
  if (err != paNoError)
    throw AudioError("stopping audio output on \"" + s.device.device +
                     "\" failed: " + Pa_GetErrorText(err));
}

void PlaybackSink::close() {
  if (!impl_ || !impl_->device.stream) return;
  detail::close_output(impl_->device);
  impl_->running = false;
}

int PlaybackSink::sample_rate() const { return impl_->sample_rate; }

std::uint64_t PlaybackSink::underruns() const {
  return impl_->underruns.load(std::memory_order_relaxed);
}

std::uint64_t PlaybackSink::samples_played() const {
  return impl_->played.load(std::memory_order_acquire);
}

}  // namespace tts::audio
