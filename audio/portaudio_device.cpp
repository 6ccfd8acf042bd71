#include "portaudio_device.h"

#include <alsa/asoundlib.h>
#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "tts/audio/playback.h"

namespace tts::audio::detail {

namespace {

const char kUseFileHint[] = "; write to a file instead, e.g. -o file.wav";

// PortAudio's global state (Pa_Initialize's reference count, the device list) is not thread-safe,
// so every call that touches it goes through this lock. It also serialises the stderr redirection.
std::mutex& portaudio_mutex() {
  static std::mutex m;
  return m;
}

bool debug_audio() {
  const char* v = std::getenv("TTS_AUDIO_DEBUG");
  return v && *v && std::string(v) != "0";
}

void ignore_alsa_error(const char*, int, const char*, int, const char*, ...) {}

// PortAudio's device scan makes ALSA, the PulseAudio plugin and libjack print dozens of lines on a
// machine without a sound card. ALSA's own messages go through a handler we can replace; libjack
// and some plugins write straight to stderr, so during PortAudio calls fd 2 is pointed at
// /dev/null as well. Other threads' stderr output in that window is lost too, which is why the
// window is kept to the PortAudio calls themselves.
class QuietStderr {
 public:
  QuietStderr() {
    static std::once_flag alsa_once;
    if (debug_audio()) return;
    std::call_once(alsa_once, [] { snd_lib_error_set_handler(&ignore_alsa_error); });
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && devnull >= 0) ::dup2(devnull, STDERR_FILENO);
    if (devnull >= 0) ::close(devnull);
  }
  ~QuietStderr() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

// The result of an open attempt, shared between the caller and the worker thread that does the
// work, so that a caller who has given up (timeout) can leave the worker to clean up after itself.
struct OpenAttempt {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  bool abandoned = false;
  OutputStream output;
  std::string error;                   // empty on success
  bool initialised = false;            // Pa_Initialize succeeded (needs a matching Pa_Terminate)
  std::unique_ptr<QuietStderr> quiet;  // guarded by m: either side may end the silence
};

PaError open_stream(OutputStream& out, PaDeviceIndex device, int channels, int sample_rate,
                    PaStreamCallback* callback, void* user_data) {
  const PaDeviceInfo* info = Pa_GetDeviceInfo(device);
  PaStreamParameters params{};
  params.device = device;
  params.channelCount = channels;
  params.sampleFormat = paFloat32;
  // The high latency leaves the most room for a busy machine; speech does not need low latency.
  params.suggestedLatency = info ? info->defaultHighOutputLatency : 0.1;
  out.channels = channels;
  out.device = info && info->name ? info->name : "default";
  return Pa_OpenStream(&out.stream, nullptr, &params, sample_rate, paFramesPerBufferUnspecified,
                       paNoFlag, callback, user_data);
}

// Runs on the worker thread with the PortAudio lock held.
void attempt_open(OpenAttempt& a, int sample_rate, PaStreamCallback* callback, void* user_data) {
  PaError err = Pa_Initialize();
  if (err != paNoError) {
    a.error = std::string("cannot initialise audio output (") + Pa_GetErrorText(err) + ")";
    return;
  }
  a.initialised = true;
  PaDeviceIndex device = Pa_GetDefaultOutputDevice();
  if (device == paNoDevice) {
    a.error = "no audio output device found";
    return;
  }
  err = open_stream(a.output, device, 1, sample_rate, callback, user_data);
  if (err == paInvalidChannelCount)  // some hardware only plays stereo
    err = open_stream(a.output, device, 2, sample_rate, callback, user_data);
  if (err != paNoError) {
    a.output.stream = nullptr;
    a.error = "cannot open audio output device \"" + a.output.device + "\" at " +
              std::to_string(sample_rate) + " Hz (" + Pa_GetErrorText(err) + ")";
  }
}

}  // namespace

OutputStream open_default_output(int sample_rate, PaStreamCallback* callback, void* user_data,
                                 std::chrono::milliseconds timeout) {
  auto attempt = std::make_shared<OpenAttempt>();
  // A misbehaving sound server can block PortAudio's device scan indefinitely, and a blocked
  // thread cannot be cancelled; so the scan runs on a detached worker and we stop waiting.
  std::thread([attempt, sample_rate, callback, user_data] {
    std::lock_guard<std::mutex> pa_lock(portaudio_mutex());
    {
      std::lock_guard<std::mutex> lock(attempt->m);
      if (!attempt->abandoned) attempt->quiet = std::make_unique<QuietStderr>();
    }
    attempt_open(*attempt, sample_rate, callback, user_data);
    std::lock_guard<std::mutex> lock(attempt->m);
    if (attempt->abandoned || !attempt->error.empty()) {
      // Nobody will use this stream (or it failed): release everything here.
      if (attempt->output.stream) Pa_CloseStream(attempt->output.stream);
      if (attempt->initialised) Pa_Terminate();
      attempt->output.stream = nullptr;
    }
    attempt->quiet.reset();
    attempt->done = true;
    attempt->cv.notify_all();
  }).detach();

  std::unique_lock<std::mutex> lock(attempt->m);
  if (!attempt->cv.wait_for(lock, timeout, [&] { return attempt->done; })) {
    attempt->abandoned = true;
    attempt->quiet.reset();  // our own message must be visible
    throw NoAudioDeviceError("audio output device did not respond within " +
                             std::to_string(timeout.count()) + " ms" + kUseFileHint);
  }
  if (!attempt->error.empty()) throw NoAudioDeviceError(attempt->error + kUseFileHint);
  return attempt->output;
}

void close_output(OutputStream& output) {
  if (!output.stream) return;
  std::lock_guard<std::mutex> pa_lock(portaudio_mutex());
  QuietStderr quiet;
  Pa_AbortStream(output.stream);  // no-op error if already stopped
  Pa_CloseStream(output.stream);
  Pa_Terminate();
  output.stream = nullptr;
}

PaError quietly(PaError (*function)(PaStream*), PaStream* stream) {
  // Start/stop only touch this stream, so they need no PortAudio-wide lock; but the stderr
  // redirection is process-wide and must not interleave with another one.
  std::lock_guard<std::mutex> pa_lock(portaudio_mutex());
  QuietStderr quiet;
  return function(stream);
}

}  // namespace tts::audio::detail
