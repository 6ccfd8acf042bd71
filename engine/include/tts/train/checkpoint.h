// Training checkpoints: OUT/checkpoint.json (step, seed, config, which weights file) beside
// OUT/checkpoint-STEP.safetensors (weights, EMA weights, Adam moments). The JSON is written last
// and is the commit point: a crash at any moment leaves a complete earlier checkpoint.
#pragma once

#include <cstdint>
#include <filesystem>

#include "tts/kernels/mel.h"
#include "tts/kernels/parameter_set.h"
#include "tts/train/checkpoint_files.h"
#include "tts/vocoder/config.h"

namespace tts::train {

struct TrainingState {
  int64_t step = 0;  // optimiser steps taken; also the index of the next batch to draw
  uint64_t seed = 0;
  vocoder::WaveNetConfig config;
  kernels::MelConfig features;
  kernels::ParameterSet weights, ema, first_moment, second_moment;
};

void save_checkpoint(const std::filesystem::path& out_dir, const TrainingState& state);

// Reads OUT/checkpoint.json and its weights into `state` (whose parameter sets must already have
// the model's layout). Throws std::runtime_error naming the file when anything does not match.
void load_checkpoint(const std::filesystem::path& out_dir, TrainingState& state);


}  // namespace tts::train
