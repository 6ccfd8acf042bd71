// Streaming encoders: what they write, fed a few samples at a time, is a file that libsndfile
// reads back with the same audio (exactly for wav, pcm and flac; by length for the lossy ones).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "temp_folder.h"
#include "tts/audio/audio_file.h"
#include "tts/audio/stream_encoder.h"

namespace fs = std::filesystem;
using namespace tts::audio;

namespace {

constexpr int kRate = 16000;

std::vector<float> tone(std::size_t n) {
  std::vector<float> s(n);
  for (std::size_t i = 0; i < n; ++i)
    s[i] = 0.5f * std::sin(2.0f * 3.14159265f * 220.0f * static_cast<float>(i) / kRate);
  return s;
}

// Encodes in uneven pieces, as chunks arrive from a synthesis.
std::string encode_in_pieces(StreamEncoder& e, const std::vector<float>& s) {
  std::string out;
  std::size_t sizes[] = {1, 255, 2048, 7, 4096, 333};
  std::size_t at = 0, k = 0;
  while (at < s.size()) {
    std::size_t n = std::min(sizes[k++ % 6], s.size() - at);
    out += e.encode(s.data() + at, n);
    at += n;
  }
  return out + e.finish();
}

Audio decode(const std::string& bytes, const std::string& ext) {
  const tts::testing_support::TempFolder dir;
  fs::path file = dir / ("a." + ext);
  std::ofstream(file, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return read_audio(file);
}

std::vector<float> quantised(const std::vector<float>& s) {
  std::vector<float> q(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) q[i] = std::lrint(s[i] * 32767.0f) / 32768.0f;
  return q;
}

TEST(StreamEncoder, WavIsTheSamplesBehindAStreamingHeader) {
  auto s = tone(10000);
  auto e = make_stream_encoder("wav", kRate);
  EXPECT_EQ(e->mime_type(), "audio/wav");
  std::string bytes = encode_in_pieces(*e, s);
  ASSERT_EQ(bytes.size(), 44 + 2 * s.size());
  EXPECT_EQ(bytes.substr(0, 4), "RIFF");
  EXPECT_EQ(bytes.substr(36, 4), "data");
  Audio a = decode(bytes, "wav");
  EXPECT_EQ(a.sample_rate, kRate);
  ASSERT_EQ(a.samples.size(), s.size());
  auto q = quantised(s);
  for (std::size_t i = 0; i < s.size(); ++i) ASSERT_FLOAT_EQ(a.samples[i], q[i]) << i;
}

TEST(StreamEncoder, PcmIsLittleEndianClipped) {
  auto e = make_stream_encoder("pcm", kRate);
  float s[] = {0.0f, 1.0f, -1.0f, 2.0f, -3.0f, NAN};
  std::string b = e->encode(s, 6) + e->finish();
  ASSERT_EQ(b.size(), 12u);
  auto at = [&](int i) {
    return static_cast<std::int16_t>(static_cast<unsigned char>(b[2 * i]) |
                                     (static_cast<unsigned char>(b[2 * i + 1]) << 8));
  };
  EXPECT_EQ(at(0), 0);
  EXPECT_EQ(at(1), 32767);
  EXPECT_EQ(at(2), -32767);
  EXPECT_EQ(at(3), 32767);
  EXPECT_EQ(at(4), -32767);
  EXPECT_EQ(at(5), 0);
}

TEST(StreamEncoder, FlacRoundTripsExactlyWithoutSeekingBack) {
  auto s = tone(20000);
  auto e = make_stream_encoder("flac", kRate);
  std::string first = e->encode(s.data(), 100);
  EXPECT_EQ(first.substr(0, 4), "fLaC");  // the header leaves before the audio is done
  std::string bytes = first + encode_in_pieces(*e, std::vector<float>(s.begin() + 100, s.end()));
  Audio a = decode(bytes, "flac");
  ASSERT_EQ(a.samples.size(), s.size());
  auto q = quantised(s);
  for (std::size_t i = 0; i < s.size(); ++i) ASSERT_FLOAT_EQ(a.samples[i], q[i]) << i;
}

TEST(StreamEncoder, LossyFormatsDecodeToTheSameLength) {
  auto s = tone(16000);
  for (const auto& format : stream_formats(kRate)) {
    if (format == "wav" || format == "pcm" || format == "flac") continue;
    SCOPED_TRACE(format);
    auto e = make_stream_encoder(format, kRate);
    std::string bytes = encode_in_pieces(*e, s);
    ASSERT_GT(bytes.size(), 100u);
    Audio a = decode(bytes, format == "mp3" ? "mp3" : "ogg");
    // Codec priming and padding add or trim a little: a streamed MP3 has no gapless header to
    // say how much, so its decoder keeps LAME's delay and last frame's padding (116 ms here).
    EXPECT_NEAR(static_cast<double>(a.samples.size()), static_cast<double>(s.size()),
                (format == "mp3" ? 0.15 : 0.1) * kRate);
  }
}

// Speech streamed as MP3 at a bit rate fit for it: a constant 64 kbit/s, as files are written.
TEST(StreamEncoder, Mp3StreamsAtSixtyFourKilobitsASecond) {
  const auto f = stream_formats(kRate);
  if (std::find(f.begin(), f.end(), "mp3") == f.end()) GTEST_SKIP() << "no MP3 in this libsndfile";
  const auto s = tone(10 * kRate);
  auto e = make_stream_encoder("mp3", kRate);
  const std::string bytes = encode_in_pieces(*e, s);
  const double kbit_per_second = 8.0 * static_cast<double>(bytes.size()) / 10.0 / 1e3;
  EXPECT_NEAR(kbit_per_second, 64.0, 4.0);
}

TEST(StreamEncoder, FormatsIncludeTheLosslessOnes) {
  auto f = stream_formats(kRate);
  for (const char* name : {"wav", "pcm", "flac"})
    EXPECT_NE(std::find(f.begin(), f.end(), name), f.end()) << name;
}

TEST(StreamEncoder, UnknownFormatNamesTheKnownOnes) {
  try {
    make_stream_encoder("aac", kRate);
    FAIL();
  } catch (const AudioError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("\"aac\""), std::string::npos) << m;
    EXPECT_NE(m.find("flac"), std::string::npos) << m;
  }
}

TEST(StreamEncoder, OpusRefusesARateItCannotCode) {
  EXPECT_THROW(make_stream_encoder("opus", 22050), AudioError);
  EXPECT_THROW(make_stream_encoder("wav", 0), AudioError);
}

}  // namespace
