// A test fixture whose corpus is one real recording: a fresh folder per test (temp_folder.h),
// holding data/clip.wav from alsa-utils, removed afterwards. Shared by the trainers' suites.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string_view>

#include "temp_folder.h"

namespace tts::testing_support {

class ClipCorpusTest : public ::testing::Test {
 protected:
  // `prefix` names the temporary folder (e.g. "tts-train-").
  explicit ClipCorpusTest(std::string_view prefix) : root_(prefix) {}

  void SetUp() override {
    const std::filesystem::path clip = "/usr/share/sounds/alsa/Front_Center.wav";  // a real voice
    std::filesystem::create_directories(root_ / "data");
    ASSERT_TRUE(std::filesystem::exists(clip)) << "install alsa-utils (scripts/install-deps)";
    std::filesystem::copy_file(clip, root_ / "data" / "clip.wav");
  }

  TempFolder root_;
};

}  // namespace tts::testing_support
