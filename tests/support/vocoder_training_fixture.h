// The vocoder trainer's test fixture: a fresh folder holding one real recording
// (clip_corpus_test.h), a tiny WaveNet's options, the log, and the checkpoint's tensors as bytes
// for exact comparisons. Shared by the vocoder trainer's suites (vocoder_training_test.cpp,
// vocoder_checkpoint_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "clip_corpus_test.h"
#include "tts/kernels/safetensors.h"
#include "tts/train/vocoder_trainer.h"

namespace tts::testing_support {

class VocoderTraining : public ClipCorpusTest {
 protected:
  VocoderTraining() : ClipCorpusTest("tts-train-") {}

  train::VocoderTrainingOptions options(const std::string& out, int64_t steps) {
    train::VocoderTrainingOptions o;
    o.data_dir = root_ / "data";
    o.out_dir = root_ / out;
    o.config.layers = 6;
    o.config.dilation_cycle = 6;
    o.config.residual_channels = 16;
    o.config.skip_channels = 32;
    o.steps = steps;
    o.batch_segments = 2;
    o.batch_length = 2000;
    o.adam.learning_rate = 3e-3f;
    o.warmup_steps = 20;
    o.validate_every = 0;
    o.checkpoint_every = 5;
    o.log_every = 1000;
    return o;
  }

  std::ostringstream log_;
};

// Every tensor of the checkpoint in `checkpoint_dir` (weights, EMA, Adam moments), concatenated.
inline std::vector<std::byte> tensor_bytes(const std::filesystem::path& checkpoint_dir) {
  std::ifstream in(checkpoint_dir / "checkpoint.json");
  const auto j = nlohmann::json::parse(in);
  const auto file =
      kernels::SafetensorsFile::load(checkpoint_dir / j.at("weights").get<std::string>());
  std::vector<std::byte> all;
  for (const auto& name : file.names()) {
    const auto& t = file.tensor(name);
    all.insert(all.end(), t.data, t.data + t.nbytes);
  }
  return all;
}

}  // namespace tts::testing_support
