// A test fixture for acoustic-model training on real recorded speech: alsa-utils' six spoken
// channel names with their transcripts, as an LJSpeech-style folder in a fresh temporary root,
// and the options of a model small enough to train in a second.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_folder.h"
#include "tts/train/acoustic_trainer.h"

namespace tts::testing_support {

namespace fs = std::filesystem;

inline const fs::path kSounds = "/usr/share/sounds/alsa";  // alsa-utils: a real voice

class AlsaAcousticCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "data" / "wavs");
    std::ofstream meta(root_ / "data" / "metadata.csv");
    for (const char* name :
         {"Front_Center", "Front_Left", "Front_Right", "Rear_Left", "Rear_Right", "Side_Left"}) {
      ASSERT_TRUE(fs::exists(kSounds / (std::string(name) + ".wav")))
          << "install alsa-utils (scripts/install-deps)";
      fs::copy_file(kSounds / (std::string(name) + ".wav"),
                    root_ / "data" / "wavs" / (std::string(name) + ".wav"));
      std::string text = name;
      text[text.find('_')] = ' ';
      meta << name << "|" << text << "\n";
    }
  }
  train::AcousticTrainingOptions options(const std::string& out, int64_t steps) {
    train::AcousticTrainingOptions o;
    o.data_dir = root_ / "data";
    o.out_dir = root_ / out;
    o.config.channels = 16;
    o.config.encoder_blocks = 2;
    o.config.duration_channels = 8;
    o.config.decoder_channels = 16;
    o.config.decoder_blocks = 2;
    o.steps = steps;
    o.batch_utterances = 3;
    o.adam.learning_rate = 3e-3f;
    o.warmup_steps = 5;
    o.uniform_alignment_steps = 3;
    o.validate_every = 0;
    o.checkpoint_every = 5;
    o.log_every = 1000;
    return o;
  }

  TempFolder root_{"tts-acoustic-"};
  std::ostringstream log_;
};

}  // namespace tts::testing_support
