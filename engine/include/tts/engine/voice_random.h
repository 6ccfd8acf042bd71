// A complete voice with randomly initialised weights: it babbles, but exercises every file, check
// and code path of a real voice. For tests, benchmarks and the install test.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tts::engine {

struct RandomVoiceOptions {
  std::string name = "random";
  std::string language = "en-us";
  std::vector<std::string> languages;                // BCP 47; empty: that of `language`
  std::map<std::string, std::string> espeak_voices;  // tag → espeak-ng voice (voice.json)
  std::uint64_t seed = 1;
  // Size of the networks. "tiny" (fast, for tests: WaveNet L=4, R=8, S=16; acoustic 16 channels)
  // or "full" (the default hyper-parameters of both models, for benchmarks).
  std::string size = "tiny";
};

// Writes FOLDER/{voice.json, acoustic/, vocoder/} through the models' own save functions.
// Throws std::invalid_argument for an unknown size, std::runtime_error on I/O failure.
void create_random_voice(const std::filesystem::path& folder, const RandomVoiceOptions& options);

}  // namespace tts::engine
