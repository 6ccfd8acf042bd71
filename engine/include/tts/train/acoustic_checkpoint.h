// Acoustic-model training checkpoints, as for the vocoder (checkpoint.h): OUT/checkpoint.json
// (step, seed, config, features, which weights file) beside OUT/checkpoint-STEP.safetensors
// (weights, EMA weights, Adam moments). The JSON is written last and is the commit point.
#pragma once

#include <cstdint>
#include <filesystem>

#include "tts/frontend/acoustic/config.h"
#include "tts/kernels/mel.h"
#include "tts/kernels/parameter_set.h"

namespace tts::train {

struct AcousticTrainingState {
  int64_t step = 0;  // optimiser steps taken; also the index of the next batch
  uint64_t seed = 0;
  frontend::AcousticConfig config;
  kernels::MelConfig features;
  kernels::ParameterSet weights, ema, first_moment, second_moment;
};

void save_acoustic_checkpoint(const std::filesystem::path& out_dir,
                              const AcousticTrainingState& state);

// Reads OUT/checkpoint.json and its weights into `state`, whose config and parameter layouts must
// already be this run's. Throws std::runtime_error naming the file when anything does not match.
void load_acoustic_checkpoint(const std::filesystem::path& out_dir, AcousticTrainingState& state);

}  // namespace tts::train
