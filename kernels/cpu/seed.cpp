#include "tts/kernels/seed.h"

namespace tts::kernels {

std::uint64_t splitmix64(std::uint64_t state, std::uint64_t n) {
  std::uint64_t z = state + n * 0x9E3779B97F4A7C15ull;  // the golden-ratio increment, n times
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t sentence_seed(std::uint64_t seed, std::size_t index) {
  return splitmix64(seed + 0x632BE59BD9B4E019ull * static_cast<std::uint64_t>(index));
}

}  // namespace tts::kernels
