// The voice a `tts bench` command measures: a named or folder voice, or else a random voice of a
// given size made in a temporary folder that is removed with this object.
#pragma once

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"

namespace tts::cli {

class BenchVoice {
 public:
  // `name_or_path` empty: a random voice of `random_size` ("tiny" or "full").
  BenchVoice(const std::string& name_or_path, const std::string& random_size) {
    namespace fs = std::filesystem;
    if (!name_or_path.empty()) {
      folder_ = engine::resolve_voice(name_or_path);
      return;
    }
    std::random_device rd;
    temporary_ = fs::temp_directory_path() / ("tts-bench-voice-" + std::to_string(rd()));
    engine::RandomVoiceOptions random;
    random.size = random_size;
    engine::create_random_voice(temporary_, random);
    folder_ = temporary_;
  }
  ~BenchVoice() {
    std::error_code ec;
    if (!temporary_.empty()) std::filesystem::remove_all(temporary_, ec);
  }
  BenchVoice(const BenchVoice&) = delete;
  BenchVoice& operator=(const BenchVoice&) = delete;

  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_, temporary_;
};

}  // namespace tts::cli
