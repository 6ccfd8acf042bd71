// Tests for the lock-free SPSC ring buffer that feeds the playback callback.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "tts/audio/ring_buffer.h"

using tts::audio::SpscRingBuffer;

namespace {

// Sample values that are exact in float and unique over the test length (< 2^24).
float value_at(std::uint32_t i) { return static_cast<float>(i % (1u << 24)); }

}  // namespace

TEST(AudioRingBuffer, CapacityRoundsUpToPowerOfTwo) {
  EXPECT_EQ(SpscRingBuffer(1).capacity(), 1u);
  EXPECT_EQ(SpscRingBuffer(5).capacity(), 8u);
  EXPECT_EQ(SpscRingBuffer(1024).capacity(), 1024u);
  EXPECT_EQ(SpscRingBuffer(1025).capacity(), 2048u);
  EXPECT_THROW(SpscRingBuffer(0), std::invalid_argument);
}

TEST(AudioRingBuffer, PushStopsWhenFullAndPopReturnsInOrder) {
  SpscRingBuffer ring(8);
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(ring.push(in.data(), in.size()), 8u);  // only 8 fit
  EXPECT_EQ(ring.size(), 8u);
  EXPECT_EQ(ring.space(), 0u);
  EXPECT_EQ(ring.push(in.data(), 1), 0u);

  std::vector<float> out(10, -1.0f);
  EXPECT_EQ(ring.pop(out.data(), 3), 3u);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 2.0f);
  EXPECT_EQ(out[2], 3.0f);
  EXPECT_EQ(ring.space(), 3u);

  // Wraps around the end of the storage.
  EXPECT_EQ(ring.push(in.data() + 8, 2), 2u);
  EXPECT_EQ(ring.pop(out.data(), 10), 7u);
  const std::vector<float> expected = {4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 7), expected);
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_EQ(ring.pop(out.data(), 1), 0u);
}

TEST(AudioRingBuffer, ManyWrapsSingleThreadKeepOrder) {
  SpscRingBuffer ring(16);
  std::uint32_t next_in = 0, next_out = 0;
  float buf[13];
  // Odd chunk sizes against a power-of-two capacity hit every wrap position.
  for (int round = 0; round < 1000; ++round) {
    std::size_t want = 1 + (round * 7) % 13;
    for (std::size_t i = 0; i < want; ++i) buf[i] = value_at(next_in + i);
    next_in += static_cast<std::uint32_t>(ring.push(buf, want));
    std::size_t got = ring.pop(buf, 1 + (round * 5) % 11);
    for (std::size_t i = 0; i < got; ++i) ASSERT_EQ(buf[i], value_at(next_out++));
  }
  EXPECT_GT(next_out, 1000u);
}

TEST(AudioRingBuffer, TwoThreadsSeeLongSequenceExactlyInOrder) {
  constexpr std::uint32_t kTotal = 4'000'000;
  SpscRingBuffer ring(1024);

  std::thread producer([&] {
    float chunk[97];
    std::uint32_t sent = 0;
    while (sent < kTotal) {
      std::size_t n = std::min<std::uint32_t>(97, kTotal - sent);
      for (std::size_t i = 0; i < n; ++i) chunk[i] = value_at(sent + i);
      std::size_t pushed = 0;
      while (pushed < n) {
        std::size_t k = ring.push(chunk + pushed, n - pushed);
        if (k == 0) std::this_thread::yield();
        pushed += k;
      }
      sent += static_cast<std::uint32_t>(n);
    }
  });

  std::uint32_t received = 0;
  std::uint32_t mismatches = 0;
  std::uint32_t first_bad = 0;
  float chunk[61];
  while (received < kTotal) {
    std::size_t k = ring.pop(chunk, 61);
    if (k == 0) std::this_thread::yield();
    for (std::size_t i = 0; i < k; ++i, ++received) {
      if (chunk[i] != value_at(received) && mismatches++ == 0) first_bad = received;
    }
  }
  producer.join();
  EXPECT_EQ(received, kTotal);
  EXPECT_EQ(mismatches, 0u) << "first mismatch at sample " << first_bad;
  EXPECT_EQ(ring.size(), 0u);
}
