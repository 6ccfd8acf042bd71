// A test fixture whose corpus is one real recording: a fresh folder per test (named after the test
// and the process), holding data/clip.wav from alsa-utils, removed afterwards. Shared by the
// trainers' suites.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

namespace tts::testing_support {

class ClipCorpusTest : public ::testing::Test {
 protected:
  // `prefix` names the temporary folder (e.g. "tts-train-").
  explicit ClipCorpusTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    const std::filesystem::path clip = "/usr/share/sounds/alsa/Front_Center.wav";  // a real voice
    root_ = std::filesystem::temp_directory_path() /
            (prefix_ + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "data");
    ASSERT_TRUE(std::filesystem::exists(clip)) << "install alsa-utils (scripts/install-deps)";
    std::filesystem::copy_file(clip, root_ / "data" / "clip.wav");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::filesystem::path root_;

 private:
  std::string prefix_;
};

}  // namespace tts::testing_support
