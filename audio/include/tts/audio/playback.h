// Playback to the default audio output device through PortAudio.
//
// The producer (synthesis) thread calls write(); samples go into a lock-free ring buffer and the
// device callback pulls them out. The callback never locks or allocates: on underrun it plays
// silence and counts it. Only the producer ever waits (short sleeps) when the buffer is full.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tts/audio/audio_file.h"

namespace tts::audio {

// There is no usable output device (no sound card, ALSA misconfigured, device busy, or it did not
// answer in time). The message is one line and suggests writing to a file instead.
class NoAudioDeviceError : public AudioError {
 public:
  using AudioError::AudioError;
};

struct PlaybackOptions {
  // Ring buffer length; also how far synthesis may run ahead of the speaker.
  double buffer_seconds = 1.0;
  // How long opening the device (PortAudio's device scan included) may take before we give up.
  std::chrono::milliseconds open_timeout{10000};
  // Extra time drain() allows beyond the audio still queued before declaring the device stalled.
  std::chrono::milliseconds stall_timeout{5000};
};

class PlaybackSink {
 public:
  // Opens the default output device for mono float audio at `sample_rate`. Throws
  // NoAudioDeviceError when there is no device, AudioError for other failures.
  explicit PlaybackSink(int sample_rate, PlaybackOptions options = {});
  ~PlaybackSink();  // close(), swallowing errors
  PlaybackSink(const PlaybackSink&) = delete;
  PlaybackSink& operator=(const PlaybackSink&) = delete;

  // Queues samples for playback; returns once all are in the ring buffer. Starts the device once
  // enough audio is buffered to avoid an immediate underrun. Call from one thread only.
  void write(const float* samples, std::size_t count);

  // Blocks until everything written has been played, then pauses the device (a later write()
  // restarts it). Throws AudioError if the device stops consuming audio.
  void drain();

  // Stops playback at once (discarding anything queued) and releases the device. Idempotent.
  void close();

  int sample_rate() const;
  // Device callbacks that found the ring buffer short while audio was still expected.
  std::uint64_t underruns() const;
  // Samples handed to the device so far (not counting silence filled in on underrun).
  std::uint64_t samples_played() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tts::audio
