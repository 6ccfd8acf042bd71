// A GoogleTest fixture for suites that share one random voice (tts::engine::create_random_voice),
// made once per suite in a fresh temporary folder (temp_folder.h) and removed with it after the
// suite's last test. Making a voice takes a while; the tests only read it (or copy it to damage the
// copy), so one per suite is enough.
//
//   class Pipeline : public tts::testing_support::RandomVoiceSuite<Pipeline> { ... };
//   TEST_F(Pipeline, X) { SynthesisStream stream(voice()); ... }
//
// The suite's class is the template argument so that each suite has its own voice and can choose
// what is made by declaring public static functions of its own that hide the defaults below:
//
//   static tts::engine::RandomVoiceOptions voice_options();  // the voice's options: {}
//   static std::filesystem::path voice_subfolder();          // where in folder(): "voice"
//
// A suite that needs more in the folder defines SetUpTestSuite, calling this one first.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "temp_folder.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"

namespace tts::testing_support {

template <class Suite>
class RandomVoiceSuite : public ::testing::Test {
 public:
  static engine::RandomVoiceOptions voice_options() { return {}; }
  static std::filesystem::path voice_subfolder() { return "voice"; }

 protected:
  static void SetUpTestSuite() {
    folder_.emplace();  // named after the suite
    voice_path_ = folder_->path() / Suite::voice_subfolder();
    engine::create_random_voice(voice_path_, Suite::voice_options());
  }
  static void TearDownTestSuite() {
    voice_.reset();
    voice_path_.clear();
    folder_.reset();
  }

  // The suite's temporary folder, which holds the voice; tests may write in it.
  static const std::filesystem::path& folder() { return folder_.value().path(); }
  // The voice's folder: folder() / voice_subfolder().
  static const std::filesystem::path& voice_path() { return voice_path_; }
  // The voice, loaded at its first use and then shared by the suite's tests; suites that only
  // need its files (to load through the C API or the command line, or to copy) never load it here.
  static const std::shared_ptr<const engine::Voice>& voice() {
    const std::lock_guard<std::mutex> lock(voice_mutex_);
    if (!voice_) voice_ = engine::Voice::load(voice_path_);
    return voice_;
  }

 private:
  inline static std::optional<TempFolder> folder_;
  inline static std::filesystem::path voice_path_;
  inline static std::mutex voice_mutex_;
  inline static std::shared_ptr<const engine::Voice> voice_;
};

}  // namespace tts::testing_support
