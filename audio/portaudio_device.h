// Opening and closing a PortAudio output stream without noise and without hanging (internal to
// tts_audio; the public interface is tts/audio/playback.h).
#pragma once

#include <portaudio.h>

#include <chrono>
#include <string>

namespace tts::audio::detail {

struct OutputStream {
  PaStream* stream = nullptr;
  int channels = 0;    // 1, or 2 when the device refuses mono (the callback duplicates)
  std::string device;  // device name, for messages
};

// Initialises PortAudio and opens the default output device for float audio at `sample_rate`
// with `callback`/`user_data`. The stream is opened, not started. ALSA/JACK chatter on stderr is
// suppressed (set TTS_AUDIO_DEBUG=1 to see it). Throws NoAudioDeviceError if there is no usable
// device or the scan takes longer than `timeout`.
OutputStream open_default_output(int sample_rate, PaStreamCallback* callback, void* user_data,
                                 std::chrono::milliseconds timeout);

// Closes the stream (aborting it if running) and releases this user's PortAudio reference.
void close_output(OutputStream& output);

// PortAudio calls other than init/open/close (start/stop) can also make ALSA log; run them with
// stderr quietened the same way. Returns the PortAudio error code.
PaError quietly(PaError (*function)(PaStream*), PaStream* stream);

}  // namespace tts::audio::detail
