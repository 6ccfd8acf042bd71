#include "tts/kernels/read_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace tts::kernels {

namespace {

// Eight independent integer sums, which the compiler vectorises without reassociating floats:
// the loop is bound by its loads. The sum is returned so the reads cannot be optimised away.
std::uint32_t sum_words(const std::uint32_t* words, std::size_t count) {
  std::uint32_t acc[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += words[i + static_cast<std::size_t>(k)];
  for (; i < count; ++i) acc[0] += words[i];
  std::uint32_t total = 0;
  for (const std::uint32_t a : acc) total += a;
  return total;
}

}  // namespace

double measure_read_bytes_per_second(std::size_t bytes, double seconds) {
  const std::size_t count = std::max<std::size_t>(bytes / sizeof(std::uint32_t), 1024);
  std::vector<std::uint32_t> buffer(count);
  for (std::size_t i = 0; i < count; ++i) buffer[i] = static_cast<std::uint32_t>(i);
  using Clock = std::chrono::steady_clock;
  volatile std::uint32_t sink = sum_words(buffer.data(), count);  // warm-up: caches, pages
  double best = 0.0, elapsed = 0.0;
  const auto start = Clock::now();
  // The best of many passes: a pass that another process interrupted is not the bound.
  while (elapsed < seconds) {
    const auto pass = Clock::now();
    sink = sink + sum_words(buffer.data(), count);
    const double t = std::chrono::duration<double>(Clock::now() - pass).count();
    if (t > 0) best = std::max(best, static_cast<double>(count * sizeof(std::uint32_t)) / t);
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return best;
}

}  // namespace tts::kernels
