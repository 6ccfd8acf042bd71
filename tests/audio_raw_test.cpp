// write_raw_s16le: the exact bytes that `tts say` sends to stdout.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "tts/audio/audio_file.h"

namespace {

std::vector<unsigned char> raw_bytes(const std::vector<float>& samples) {
  std::FILE* f = std::tmpfile();
  EXPECT_NE(f, nullptr);
  tts::audio::write_raw_s16le(f, samples.data(), samples.size());
  std::fflush(f);
  std::rewind(f);
  std::vector<unsigned char> bytes;
  for (int c; (c = std::fgetc(f)) != EOF;) bytes.push_back(static_cast<unsigned char>(c));
  std::fclose(f);
  return bytes;
}

}  // namespace

TEST(AudioRaw, BytesAreLittleEndianRoundedAndClipped) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in = {0.0f,  1.0f, -1.0f, 0.5f, -0.5f,        2.0f,
                           -3.0f, inf,  -inf,  nan,  1.0f / 32767, -2.0f / 32767};
  // Scale is 32767 so that +1 and -1 are symmetric; 0.5 * 32767 = 16383.5 rounds to even.
  std::vector<unsigned char> expected = {
      0x00, 0x00,  // 0
      0xFF, 0x7F,  // +1 -> 32767
      0x01, 0x80,  // -1 -> -32767
      0x00, 0x40,  // 0.5 -> 16384
      0x00, 0xC0,  // -0.5 -> -16384
      0xFF, 0x7F,  // 2 clips to 32767
      0x01, 0x80,  // -3 clips to -32767
      0xFF, 0x7F,  // +inf clips
      0x01, 0x80,  // -inf clips
      0x00, 0x00,  // NaN becomes silence
      0x01, 0x00,  // one step
      0xFE, 0xFF,  // minus two steps
  };
  EXPECT_EQ(raw_bytes(in), expected);
}

TEST(AudioRaw, LongInputCrossesInternalBlocksIntact) {
  // Longer than the writer's internal block, with a value pattern that shows any shift or gap.
  std::vector<float> in(10007);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(static_cast<int>(i % 2001) - 1000) / 32767.0f;
  std::vector<unsigned char> bytes = raw_bytes(in);
  ASSERT_EQ(bytes.size(), 2 * in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto v = static_cast<std::int16_t>(bytes[2 * i] | bytes[2 * i + 1] << 8);
    ASSERT_EQ(v, static_cast<int>(i % 2001) - 1000) << "sample " << i;
  }
}

TEST(AudioRaw, ClosedOutputThrows) {
  std::FILE* read_only = std::fopen("/dev/null", "r");
  ASSERT_NE(read_only, nullptr);
  std::vector<float> in(100, 0.25f);
  EXPECT_THROW(tts::audio::write_raw_s16le(read_only, in.data(), in.size()),
               tts::audio::AudioError);
  std::fclose(read_only);
}
