// Reading, resampling and writing audio files, against real recorded speech from Debian packages
// (alsa-utils, pocketsphinx-testdata; scripts/install-deps installs them).
#include "tts/audio/audio_file.h"

#include <gtest/gtest.h>
#include <sndfile.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "temp_folder.h"

namespace fs = std::filesystem;
using tts::audio::Audio;
using tts::audio::AudioError;
using tts::testing_support::TempFolder;

namespace {

const char kSpeech16k[] = "/usr/share/pocketsphinx/test/data/cards/001.wav";  // "three of clubs"
const char kSpeech16kB[] = "/usr/share/pocketsphinx/test/data/cards/002.wav";
const char kSpeech48k[] = "/usr/share/sounds/alsa/Front_Center.wav";  // "front center"

std::string need(const char* path) {
  EXPECT_TRUE(fs::exists(path)) << path << " is missing; run scripts/install-deps";
  return path;
}

// The names of what is in `folder`, to check that no temporaries are left behind.
std::vector<std::string> entries_of(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename());
  return names;
}

std::vector<char> file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Independent oracle for 16-bit PCM WAV: walk the RIFF chunks by hand.
std::vector<std::int16_t> parse_wav_s16(const fs::path& path) {
  std::vector<char> b = file_bytes(path);
  auto u32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
  };
  std::size_t at = 12;
  while (at + 8 <= b.size()) {
    std::uint32_t size = u32(at + 4);
    if (std::string(&b[at], 4) == "data") {
      std::vector<std::int16_t> s(size / 2);
      for (std::size_t i = 0; i < s.size(); ++i)
        s[i] = static_cast<std::int16_t>(static_cast<unsigned char>(b[at + 8 + 2 * i]) |
                                         static_cast<unsigned char>(b[at + 9 + 2 * i]) << 8);
      return s;
    }
    at += 8 + size + (size & 1);
  }
  ADD_FAILURE() << "no data chunk in " << path;
  return {};
}

double rms(const std::vector<float>& x, std::size_t begin, std::size_t end) {
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) sum += double(x[i]) * x[i];
  return std::sqrt(sum / double(end - begin));
}

// Frequency from linearly interpolated upward zero crossings in [begin, end).
double zero_crossing_frequency(const std::vector<float>& x, std::size_t begin, std::size_t end,
                               int rate) {
  double first = -1, last = -1;
  int crossings = 0;
  for (std::size_t i = begin + 1; i < end; ++i) {
    if (x[i - 1] < 0 && x[i] >= 0) {
      double t = double(i - 1) + x[i - 1] / double(x[i - 1] - x[i]);
      if (first < 0) first = t;
      last = t;
      ++crossings;
    }
  }
  return (crossings - 1) * rate / (last - first);
}

void expect_throws_naming(const std::function<void()>& f, const std::string& name) {
  try {
    f();
    ADD_FAILURE() << "expected AudioError naming " << name;
  } catch (const AudioError& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

// A mono 32-bit float WAV of `samples` at `rate`, written by libsndfile as it comes (no clipping).
void write_float_wav(const fs::path& path, const std::vector<float>& samples, int rate) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
  ASSERT_EQ(sf_writef_float(file, samples.data(), sf_count_t(samples.size())),
            sf_count_t(samples.size()));
  sf_close(file);
}

}  // namespace

TEST(AudioFile, ReadsRecordedSpeechWavExactly) {
  Audio audio = tts::audio::read_audio(need(kSpeech16k));
  std::vector<std::int16_t> pcm = parse_wav_s16(kSpeech16k);
  EXPECT_EQ(audio.sample_rate, 16000);
  ASSERT_EQ(audio.samples.size(), pcm.size());
  ASSERT_GT(pcm.size(), 16000u);  // over a second of speech
  for (std::size_t i = 0; i < pcm.size(); ++i)
    ASSERT_EQ(audio.samples[i], pcm[i] / 32768.0f) << "sample " << i;
  EXPECT_GT(rms(audio.samples, 0, audio.samples.size()), 0.003);  // not silence
}

TEST(AudioFile, WavAndFlacRoundTripWithin16BitQuantisation) {
  const TempFolder dir;
  Audio speech = tts::audio::read_audio(need(kSpeech16k));
  for (const char* name : {"speech.wav", "speech.flac"}) {
    fs::path out = dir / name;
    tts::audio::write_audio(out, speech.samples.data(), speech.samples.size(), 16000);
    Audio back = tts::audio::read_audio(out);
    EXPECT_EQ(back.sample_rate, 16000) << name;
    ASSERT_EQ(back.samples.size(), speech.samples.size()) << name;
    // Written as round(x * 32767), read as n / 32768: half a step of rounding plus the
    // 32767/32768 scale difference, at most 1.5 steps of 1/32768.
    for (std::size_t i = 0; i < speech.samples.size(); ++i)
      ASSERT_NEAR(back.samples[i], speech.samples[i], 1.5 / 32768) << name << " sample " << i;
  }
  EXPECT_EQ(entries_of(dir.path()).size(), 2u);  // no temporaries left behind
}

TEST(AudioFile, AShortOggVorbisFileIsNotTakenForATruncatedOne) {
  // One audio page after the headers: libsndfile's log then says the file "ended unexpectedly"
  // although its last page carries the end-of-stream flag.
  const TempFolder dir;
  std::vector<float> tone(16000);
  for (std::size_t i = 0; i < tone.size(); ++i) tone[i] = 0.5f * std::sin(0.08f * i);
  fs::path out = dir / "short.ogg";
  tts::audio::write_audio(out, tone.data(), tone.size(), 16000);
  EXPECT_EQ(tts::audio::read_audio(out).samples.size(), tone.size());
  // Cut before its last page, it is refused.
  fs::resize_file(out, fs::file_size(out) - 100);
  EXPECT_THROW(tts::audio::read_audio(out), tts::audio::AudioError);
}

TEST(AudioFile, OggVorbisRoundTripKeepsTheWaveform) {
  const TempFolder dir;
  Audio speech = tts::audio::read_audio(need(kSpeech48k));
  fs::path out = dir / "speech.ogg";
  tts::audio::write_audio(out, speech.samples.data(), speech.samples.size(), speech.sample_rate);
  EXPECT_LT(fs::file_size(out), fs::file_size(kSpeech48k) / 4);  // really compressed
  Audio back = tts::audio::read_audio(out);
  EXPECT_EQ(back.sample_rate, speech.sample_rate);
  ASSERT_EQ(back.samples.size(), speech.samples.size());
  // Vorbis is lossy: compare by correlation and by the energy of the error, not sample by sample.
  double dot = 0, a2 = 0, b2 = 0, err2 = 0;
  for (std::size_t i = 0; i < speech.samples.size(); ++i) {
    double a = speech.samples[i], b = back.samples[i];
    dot += a * b;
    a2 += a * a;
    b2 += b * b;
    err2 += (a - b) * (a - b);
  }
  EXPECT_GT(dot / std::sqrt(a2 * b2), 0.98);
  EXPECT_GT(10 * std::log10(a2 / err2), 15.0) << "signal-to-error ratio in dB";
  EXPECT_NEAR(10 * std::log10(b2 / a2), 0.0, 0.5) << "level change in dB";
}

TEST(AudioFile, StereoIsMixedDownToTheMeanOfTheChannels) {
  const TempFolder dir;
  Audio left = tts::audio::read_audio(need(kSpeech16k));
  Audio right = tts::audio::read_audio(need(kSpeech16kB));
  std::size_t n = std::min(left.samples.size(), right.samples.size());
  std::vector<float> interleaved(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    interleaved[2 * i] = left.samples[i];
    interleaved[2 * i + 1] = right.samples[i];
  }
  fs::path stereo = dir / "stereo.wav";
  SF_INFO info{};
  info.samplerate = 16000;
  info.channels = 2;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;  // float keeps the expected mean exact
  SNDFILE* f = sf_open(stereo.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(sf_writef_float(f, interleaved.data(), static_cast<sf_count_t>(n)), sf_count_t(n));
  sf_close(f);

  Audio mono = tts::audio::read_audio(stereo);
  ASSERT_EQ(mono.samples.size(), n);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_FLOAT_EQ(mono.samples[i], (left.samples[i] + right.samples[i]) / 2) << "sample " << i;
}

TEST(AudioFile, ResamplingRoundTripKeepsFrequencyAndLevel) {
  constexpr int kHigh = 48000, kLow = 16000;
  constexpr double kFreq = 1000.0;
  std::vector<float> sine(kHigh);
  for (int i = 0; i < kHigh; ++i) sine[i] = 0.5f * std::sin(2 * M_PI * kFreq * i / kHigh);

  std::vector<float> low = tts::audio::resample(sine, kHigh, kLow);
  std::vector<float> high = tts::audio::resample(low, kLow, kHigh);
  ASSERT_EQ(low.size(), std::size_t(kLow));
  ASSERT_EQ(high.size(), std::size_t(kHigh));

  // Judge the middle half, away from the filter's edge effects.
  const double reference = rms(sine, kHigh / 4, 3 * kHigh / 4);
  EXPECT_NEAR(zero_crossing_frequency(low, kLow / 4, 3 * kLow / 4, kLow), kFreq, 0.1);
  EXPECT_NEAR(zero_crossing_frequency(high, kHigh / 4, 3 * kHigh / 4, kHigh), kFreq, 0.1);
  EXPECT_NEAR(20 * std::log10(rms(low, kLow / 4, 3 * kLow / 4) / reference), 0.0, 0.1);
  EXPECT_NEAR(20 * std::log10(rms(high, kHigh / 4, 3 * kHigh / 4) / reference), 0.0, 0.1);
  // No delay either: the round trip lines up with the original sample for sample.
  for (int i = kHigh / 4; i < 3 * kHigh / 4; ++i) ASSERT_NEAR(high[i], sine[i], 2e-3) << i;
}

TEST(AudioFile, ReadResamplesRecordedSpeechToTheRequestedRate) {
  Audio native = tts::audio::read_audio(need(kSpeech48k));
  Audio at16k = tts::audio::read_audio(kSpeech48k, 16000);
  EXPECT_EQ(native.sample_rate, 48000);
  EXPECT_EQ(at16k.sample_rate, 16000);
  EXPECT_EQ(at16k.samples.size(), (native.samples.size() + 1) / 3);
  // Speech energy sits well below 8 kHz, so the level survives the band limit.
  double ratio =
      rms(at16k.samples, 0, at16k.samples.size()) / rms(native.samples, 0, native.samples.size());
  EXPECT_NEAR(20 * std::log10(ratio), 0.0, 0.5);
}

TEST(AudioFile, WriteToUnwritableFolderThrowsNamingPathAndLeavesNoTemporary) {
  const TempFolder dir;
  std::ofstream(dir / "not-a-folder") << "x";
  // A path through a regular file fails even for root, unlike a read-only mode bit.
  fs::path target = dir / "not-a-folder" / "out.wav";
  std::vector<float> speech = tts::audio::read_audio(need(kSpeech16k)).samples;
  expect_throws_naming(
      [&] { tts::audio::write_audio(target, speech.data(), speech.size(), 16000); },
      target.string());
  EXPECT_EQ(entries_of(dir.path()), std::vector<std::string>{"not-a-folder"});

  if (::geteuid() != 0) {  // root ignores permission bits
    fs::create_directory(dir / "read-only");
    ::chmod((dir / "read-only").c_str(), 0555);
    fs::path locked = dir / "read-only" / "out.flac";
    expect_throws_naming(
        [&] { tts::audio::write_audio(locked, speech.data(), speech.size(), 16000); },
        locked.string());
    EXPECT_TRUE(fs::is_empty(dir / "read-only"));
    ::chmod((dir / "read-only").c_str(), 0755);
  }
}

TEST(AudioFile, FailedWriteMidwayLeavesOldFileAndNoTemporary) {
  const TempFolder dir;
  fs::path target = dir / "speech.wav";
  std::vector<float> speech = tts::audio::read_audio(need(kSpeech16k)).samples;
  tts::audio::write_audio(target, speech.data(), 1000, 16000);
  std::vector<char> before = file_bytes(target);

  // Simulate a full disk: cap the file size this process may write (EFBIG instead of SIGXFSZ).
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  rlimit capped = saved;
  capped.rlim_cur = 8192;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &capped), 0);
  bool threw = false;
  try {
    tts::audio::write_audio(target, speech.data(), speech.size(), 16000);
  } catch (const AudioError& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  EXPECT_TRUE(threw);
  EXPECT_EQ(file_bytes(target), before);
  EXPECT_EQ(entries_of(dir.path()), std::vector<std::string>{"speech.wav"});
}

TEST(AudioFile, WritingOverAnExistingFileReplacesItAtomically) {
  const TempFolder dir;
  fs::path target = dir / "speech.wav";
  Audio a = tts::audio::read_audio(need(kSpeech16k));
  Audio b = tts::audio::read_audio(need(kSpeech16kB));
  tts::audio::write_audio(target, a.samples.data(), a.samples.size(), 16000);
  std::vector<char> old_bytes = file_bytes(target);

  // A reader that already has the old file open keeps seeing all of it: the new file is a new
  // inode renamed over the name, never the old one truncated and rewritten in place.
  std::ifstream reader(target, std::ios::binary);
  tts::audio::write_audio(target, b.samples.data(), b.samples.size(), 16000);
  std::vector<char> seen{std::istreambuf_iterator<char>(reader), std::istreambuf_iterator<char>()};
  EXPECT_EQ(seen, old_bytes);

  Audio back = tts::audio::read_audio(target);
  ASSERT_EQ(back.samples.size(), b.samples.size());
  for (std::size_t i = 0; i < b.samples.size(); ++i)
    ASSERT_NEAR(back.samples[i], b.samples[i], 1.5 / 32768) << i;
  EXPECT_EQ(entries_of(dir.path()), std::vector<std::string>{"speech.wav"});
}

TEST(AudioFile, TruncatedOrGarbageFilesThrowNamingTheFile) {
  const TempFolder dir;
  Audio speech = tts::audio::read_audio(need(kSpeech16k));
  for (const char* ext : {".wav", ".flac", ".ogg"}) {
    fs::path whole = dir / (std::string("whole") + ext);
    tts::audio::write_audio(whole, speech.samples.data(), speech.samples.size(), 16000);
    std::vector<char> bytes = file_bytes(whole);
    fs::path cut = dir / (std::string("cut") + ext);
    std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
    expect_throws_naming([&] { tts::audio::read_audio(cut); }, cut.string());
  }
  fs::path garbage = dir / "garbage.wav";
  std::ofstream(garbage, std::ios::binary) << "RIFF\x10\0\0\0WAVEjunk that is not audio at all";
  expect_throws_naming([&] { tts::audio::read_audio(garbage); }, garbage.string());
  fs::path missing = dir / "missing.wav";
  expect_throws_naming([&] { tts::audio::read_audio(missing); }, missing.string());
}

// Found by fuzz/audio_fuzz (seed fuzz/corpus/audio/float_nan_inf.wav): a floating-point file's NaN
// or infinite samples came back as audio, poisoning every mel frame and training loss made from it.
TEST(AudioFile, NonFiniteFloatSamplesAreRefusedNamingTheFileAndSample) {
  const TempFolder dir;
  for (float bad : {std::nanf(""), INFINITY, -INFINITY}) {
    const fs::path path = dir / "float.wav";
    ASSERT_NO_FATAL_FAILURE(write_float_wav(path, {0.5f, 0.25f, bad, -0.5f}, 16000));
    try {
      tts::audio::read_audio(path);
      FAIL() << "a sample of " << bad << " was read";
    } catch (const tts::audio::AudioError& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("sample 2 is NaN or infinite"), std::string::npos)
          << e.what();
    }
  }
}

// Found by fuzz/audio_fuzz (seed fuzz/corpus/audio/float_near_max.wav): finite samples near the
// float limit read at their own rate, but resampled to 16 kHz they summed to infinity and NaN.
TEST(AudioFile, FloatSamplesFarBeyondFullScaleAreRefusedAndLoudOnesResampleFinite) {
  const TempFolder dir;
  for (float bad : {1.7e38f, -4.1e11f, 2e6f}) {
    const fs::path path = dir / "corrupt.wav";
    ASSERT_NO_FATAL_FAILURE(write_float_wav(path, {0.5f, 0.0f, bad, -0.25f}, 128));
    for (int rate : {0, 16000}) {
      try {
        tts::audio::read_audio(path, rate);
        FAIL() << "a sample of " << bad << " was read at rate " << rate;
      } catch (const tts::audio::AudioError& e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("sample 2 is"), std::string::npos) << e.what();
      }
    }
  }
  // Floats on the 16-bit scale are loud, not corrupt: they read, and resample to finite samples.
  const fs::path loud = dir / "loud.wav";
  const std::vector<float> loud_samples = {0.5f, 32767.0f, -32768.0f, 1e6f};
  ASSERT_NO_FATAL_FAILURE(write_float_wav(loud, loud_samples, 128));
  EXPECT_EQ(tts::audio::read_audio(loud).samples, loud_samples);
  const auto audio = tts::audio::read_audio(loud, 16000);
  ASSERT_EQ(audio.samples.size(), 500u);
  for (float x : audio.samples) ASSERT_TRUE(std::isfinite(x));
  EXPECT_EQ(audio.samples, tts::audio::resample(loud_samples, 128, 16000));
  // Still loud after resampling, not zeroed on the way.
  float peak = 0.0f;
  for (float x : audio.samples) peak = std::max(peak, std::abs(x));
  EXPECT_GT(peak, 1e5f);
}

TEST(AudioFile, UnknownExtensionIsRejectedBeforeTouchingTheDisk) {
  const TempFolder dir;
  float x[4] = {};
  expect_throws_naming([&] { tts::audio::write_audio(dir / "out.aac", x, 4, 16000); }, "out.aac");
  EXPECT_TRUE(entries_of(dir.path()).empty());
}

// MP3 and Opus, as `tts say -o x.mp3|x.opus` writes them: read back to the same length, about as
// loud, MP3 at its constant 64 kbit/s; Opus refuses a rate it cannot code, naming the file and
// leaving nothing behind.
TEST(AudioFile, Mp3AndOpusFilesReadBackAtTheirLengthAndRate) {
  const TempFolder dir;
  // Several seconds, so that the MP3 header frame weighs little in the bit rate.
  const std::vector<float> once = tts::audio::read_audio(need(kSpeech16k)).samples;
  Audio speech;
  for (int i = 0; i < 5; ++i) speech.samples.insert(speech.samples.end(), once.begin(), once.end());
  const double seconds = static_cast<double>(speech.samples.size()) / 16000.0;
  auto rms = [](const std::vector<float>& v) {
    double sum = 0.0;
    for (float x : v) sum += static_cast<double>(x) * x;
    return std::sqrt(sum / static_cast<double>(v.size()));
  };
  for (const char* ext : {".mp3", ".opus", ".MP3"}) {
    SCOPED_TRACE(ext);
    const fs::path path = dir / (std::string("speech") + ext);
    tts::audio::write_audio(path, speech.samples.data(), speech.samples.size(), 16000);
    const Audio back = tts::audio::read_audio(path, 16000);
    // Codec priming and padding add or trim a few milliseconds.
    EXPECT_NEAR(static_cast<double>(back.samples.size()), speech.samples.size(), 0.1 * 16000);
    EXPECT_NEAR(rms(back.samples) / rms(speech.samples), 1.0, 0.15);
    if (std::string(ext) != ".opus") {
      const double kbit_per_second = 8.0 * static_cast<double>(fs::file_size(path)) / seconds / 1e3;
      EXPECT_NEAR(kbit_per_second, 64.0, 6.0);
    }
  }
  const fs::path odd_rate = dir / "odd.opus";
  float x[4] = {};
  try {
    tts::audio::write_audio(odd_rate, x, 4, 22050);
    FAIL() << "Opus at 22050 Hz was written";
  } catch (const tts::audio::AudioError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("odd.opus"), std::string::npos) << m;
    EXPECT_NE(m.find("Opus"), std::string::npos) << m;  // libsndfile lists the rates it takes
  }
  EXPECT_FALSE(fs::exists(odd_rate));
}

TEST(AudioFileWriter, ChunkedWritesGiveTheFileOfOneWriteAndNothingShowsUntilFinish) {
  const TempFolder dir;
  const std::vector<float> speech = tts::audio::read_audio(need(kSpeech16k)).samples;
  for (const char* ext : {".wav", ".flac", ".ogg"}) {
    const fs::path whole = dir / (std::string("whole") + ext);
    const fs::path streamed = dir / (std::string("streamed") + ext);
    tts::audio::write_audio(whole, speech.data(), speech.size(), 16000);
    {
      tts::audio::AudioFileWriter writer(streamed, 16000);
      // Blocks of odd sizes, as synthesis hands them over (the first chunk is short).
      for (std::size_t at = 0, block = 256; at < speech.size(); at += block, block = 2048 + 7)
        writer.write(speech.data() + at, std::min(block, speech.size() - at));
      EXPECT_FALSE(fs::exists(streamed)) << ext << ": visible before finish()";
      writer.finish();
    }
    if (std::string(ext) != ".ogg") {
      EXPECT_EQ(file_bytes(streamed), file_bytes(whole)) << ext;
    } else {  // Vorbis pages depend on how the encoder was fed; the audio must not
      const Audio a = tts::audio::read_audio(whole), b = tts::audio::read_audio(streamed);
      ASSERT_EQ(a.samples.size(), b.samples.size());
      double diff = 0.0;
      for (std::size_t i = 0; i < a.samples.size(); ++i)
        diff = std::max(diff, static_cast<double>(std::abs(a.samples[i] - b.samples[i])));
      EXPECT_LT(diff, 1e-3);
    }
  }
  std::vector<std::string> expected = {"streamed.flac", "streamed.ogg", "streamed.wav",
                                       "whole.flac",    "whole.ogg",    "whole.wav"};
  std::vector<std::string> entries = entries_of(dir.path());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, expected);  // and no temporaries
}

TEST(AudioFileWriter, AbandonedOrFailedWritersLeaveTheOldFileAndNoTemporary) {
  const TempFolder dir;
  const fs::path target = dir / "speech.wav";
  const std::vector<float> speech = tts::audio::read_audio(need(kSpeech16k)).samples;
  tts::audio::write_audio(target, speech.data(), 1000, 16000);
  const std::vector<char> before = file_bytes(target);
  {
    // A synthesis that fails halfway: the writer is destroyed without finish().
    tts::audio::AudioFileWriter writer(target, 16000);
    writer.write(speech.data(), speech.size() / 2);
  }
  EXPECT_EQ(file_bytes(target), before);
  EXPECT_EQ(entries_of(dir.path()), std::vector<std::string>{"speech.wav"});
  // A bad path fails when the writer is made, before any audio exists, naming the path.
  std::ofstream(dir / "not-a-folder") << "x";
  const fs::path through_file = dir / "not-a-folder" / "out.wav";
  expect_throws_naming([&] { tts::audio::AudioFileWriter writer(through_file, 16000); },
                       through_file.string());
  expect_throws_naming([&] { tts::audio::AudioFileWriter writer(dir / "out.aac", 16000); },
                       "out.aac");
  std::vector<std::string> entries = entries_of(dir.path());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"not-a-folder", "speech.wav"}));
  // Writing after finish() is refused rather than lost.
  tts::audio::AudioFileWriter done(dir / "done.wav", 16000);
  done.write(speech.data(), 100);
  done.finish();
  expect_throws_naming([&] { done.write(speech.data(), 100); }, "done.wav");
}
