// Plays real recorded speech through PortAudio into ALSA's `file` plugin and checks that what
// the "device" received is what was sent. ALSA reads $XDG_CONFIG_HOME/alsa/asoundrc after the
// system configuration, so each test points the default device wherever it needs; the
// environment must be set before PortAudio initialises, which happens when a sink is opened.
#include "tts/audio/playback.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "temp_folder.h"

// ALSA's plugins (pulse, jack, ...) are dlopen'd during PortAudio's device scan and keep
// allocations from their library constructors that LeakSanitizer reports at exit. They are not
// ours to fix; any stack through libasound is one of them. (Only read in sanitizer builds.)
extern "C" __attribute__((used)) const char* __lsan_default_suppressions() {
  return "leak:libasound.so\n";
}

// The plugins are unloaded again, and a fast unwind stops at their vanished code, hiding the
// libasound frames the suppression matches; the slow unwinder still sees them.
extern "C" __attribute__((used)) const char* __asan_default_options() {
  return "fast_unwind_on_malloc=0";
}

namespace fs = std::filesystem;
using tts::audio::NoAudioDeviceError;
using tts::audio::PlaybackOptions;
using tts::audio::PlaybackSink;

namespace {

const char kSpeech[] = "/usr/share/pocketsphinx/test/data/cards/001.wav";  // 16 kHz speech

class AlsaSandbox {
 public:
  AlsaSandbox() {
    fs::create_directories(dir_ / "alsa");
    ::unsetenv("ALSA_CONFIG_PATH");  // would bypass the user-level file we write
    ::setenv("XDG_CONFIG_HOME", dir_.path().c_str(), 1);
  }
  const fs::path& dir() const { return dir_.path(); }
  fs::path tap() const { return dir_ / "played.raw"; }

  // Default device: convert to mono s16 at `rate` (so the recording's format is known whatever
  // PortAudio negotiates), then write the raw samples to `file`, discarding them afterwards.
  void route_default_to_file(int rate, const fs::path& file) const {
    std::ofstream(dir_ / "alsa" / "asoundrc")
        << "pcm.!default {\n  type plug\n  slave { pcm \"tts_tap\" format S16_LE channels 1 rate "
        << rate << " }\n}\n"
        << "pcm.tts_tap {\n  type file\n  slave.pcm \"null\"\n  file \"" << file.string()
        << "\"\n  format \"raw\"\n}\n";
  }
  void route_default_to_missing_card() const {
    std::ofstream(dir_ / "alsa" / "asoundrc") << "pcm.!default { type hw card 63 }\n"
                                              << "ctl.!default { type hw card 63 }\n";
  }

 private:
  tts::testing_support::TempFolder dir_;
};

std::vector<float> read_speech() {
  EXPECT_TRUE(fs::exists(kSpeech)) << kSpeech << " is missing; run scripts/install-deps";
  tts::audio::Audio a = tts::audio::read_audio(kSpeech);
  EXPECT_EQ(a.sample_rate, 16000);
  return a.samples;
}

std::vector<std::int16_t> read_s16(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::int16_t> s(b.size() / 2);
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = static_cast<std::int16_t>(static_cast<unsigned char>(b[2 * i]) |
                                     static_cast<unsigned char>(b[2 * i + 1]) << 8);
  return s;
}

// The tolerance covers float -> s16 conversion in ALSA (rounding or truncation, either scale).
constexpr double kS16Tolerance = 2.0 / 32768;

}  // namespace

TEST(Playback, RecordedSpeechArrivesAtTheDeviceUnchanged) {
  AlsaSandbox alsa;
  alsa.route_default_to_file(16000, alsa.tap());
  std::vector<float> speech = read_speech();

  PlaybackOptions options;
  // A ring so large that the clip stays under its start threshold (a quarter): the device starts
  // only in drain(), with everything queued, so no callback should ever find the ring short.
  options.buffer_seconds = 4 * (speech.size() / 16000.0) + 1.0;
  PlaybackSink sink(16000, options);
  sink.write(speech.data(), speech.size());
  sink.drain();
  EXPECT_EQ(sink.samples_played(), speech.size());
  EXPECT_EQ(sink.underruns(), 0u);
  sink.close();

  std::vector<std::int16_t> played = read_s16(alsa.tap());
  ASSERT_GE(played.size(), speech.size());
  // The device may have been primed with silence: find the offset by cross-correlation over the
  // first 4096 samples, which covers any priming PortAudio does at this buffer size.
  const std::size_t max_lag = std::min<std::size_t>(4096, played.size() - speech.size());
  std::size_t best_lag = 0;
  double best = -1;
  for (std::size_t lag = 0; lag <= max_lag; ++lag) {
    double dot = 0;
    for (std::size_t i = 0; i < 4000; ++i) dot += speech[2000 + i] * double(played[lag + 2000 + i]);
    if (dot > best) best = dot, best_lag = lag;
  }
  for (std::size_t i = 0; i < speech.size(); ++i)
    ASSERT_NEAR(played[best_lag + i] / 32768.0, speech[i], kS16Tolerance) << "sample " << i;
  // Before and after the clip the device heard only silence: nothing repeated or left over.
  for (std::size_t i = 0; i < best_lag; ++i) ASSERT_EQ(played[i], 0) << "leading sample " << i;
  for (std::size_t i = best_lag + speech.size(); i < played.size(); ++i)
    ASSERT_EQ(played[i], 0) << "trailing sample " << i;
}

TEST(Playback, SmallChunksThroughASmallBufferArriveInOrder) {
  AlsaSandbox alsa;
  alsa.route_default_to_file(16000, alsa.tap());
  std::vector<float> speech = read_speech();
  // ALSA's null device takes samples faster than real time, so the callback finds the ring empty
  // between chunks and plays silence there. Keep every sent sample clearly non-zero so that the
  // silence can be stripped out and the rest compared in order.
  for (float& x : speech)
    if (std::fabs(x) < 4.0f / 32768) x = std::signbit(x) ? -4.0f / 32768 : 4.0f / 32768;

  PlaybackOptions options;
  options.buffer_seconds = 0.05;  // 1024 samples: the ring wraps dozens of times
  PlaybackSink sink(16000, options);
  const std::size_t half = speech.size() / 2;
  for (std::size_t at = 0; at < half; at += 300)
    sink.write(speech.data() + at, std::min<std::size_t>(300, half - at));
  sink.drain();  // stops the device; the next write must start it again
  EXPECT_EQ(sink.samples_played(), half);
  sink.write(speech.data() + half, speech.size() - half);  // larger than the ring: producer waits
  sink.drain();
  EXPECT_EQ(sink.samples_played(), speech.size());
  EXPECT_GT(sink.underruns(), 0u);  // the faster-than-real-time device did run dry between chunks
  sink.close();
  sink.close();  // idempotent

  std::vector<std::int16_t> played = read_s16(alsa.tap());
  std::vector<std::int16_t> sound;
  for (std::int16_t s : played)
    if (s != 0) sound.push_back(s);
  ASSERT_EQ(sound.size(), speech.size());
  for (std::size_t i = 0; i < speech.size(); ++i)
    ASSERT_NEAR(sound[i] / 32768.0, speech[i], kS16Tolerance) << "sample " << i;
}

TEST(Playback, NoDeviceGivesOneQuietLineSuggestingAFile) {
  AlsaSandbox alsa;
  alsa.route_default_to_missing_card();
  testing::internal::CaptureStderr();
  bool threw = false;
  try {
    PlaybackSink sink(16000);
  } catch (const NoAudioDeviceError& e) {
    threw = true;
    std::string message = e.what();
    EXPECT_NE(message.find("-o file.wav"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  std::string noise = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(threw);
  EXPECT_EQ(noise, "") << "ALSA/JACK chatter leaked to stderr";
}

TEST(Playback, DeviceThatNeverAnswersTimesOutInsteadOfHanging) {
  AlsaSandbox alsa;
  // Opening a FIFO for writing blocks until someone reads it, which is how a wedged sound
  // server looks to PortAudio's device scan.
  fs::path fifo = alsa.dir() / "wedged";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  alsa.route_default_to_file(16000, fifo);

  PlaybackOptions options;
  options.open_timeout = std::chrono::milliseconds(500);
  auto start = std::chrono::steady_clock::now();
  try {
    PlaybackSink sink(16000, options);
    ADD_FAILURE() << "opening a wedged device should fail";
  } catch (const NoAudioDeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("did not respond"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("-o file.wav"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  // Unwedge it so the abandoned scan can finish and release PortAudio before the process ends.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::vector<char> sink_bytes(1 << 16);
  for (int i = 0; i < 100; ++i) {
    while (::read(reader, sink_bytes.data(), sink_bytes.size()) > 0) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(reader);
}

TEST(Playback, RejectsANonPositiveSampleRate) {
  EXPECT_THROW(PlaybackSink(0), tts::audio::AudioError);
}
