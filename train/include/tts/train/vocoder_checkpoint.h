// Vocoder training checkpoints (their files: checkpoint_files.h): OUT/checkpoint.json (step, seed,
// WaveNet config, features, which weights file) beside OUT/checkpoint-STEP.safetensors (weights,
// EMA weights, Adam moments). The JSON is written last and is the commit point: a crash at any
// moment leaves a complete earlier checkpoint.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tts/kernels/mel.h"
#include "tts/kernels/parameter_set.h"
#include "tts/train/batch_layout.h"
#include "tts/train/checkpoint_files.h"
#include "tts/train/loss_scaler.h"
#include "tts/vocoder/config.h"

namespace tts::train {

struct VocoderTrainingState {
  int64_t step = 0;  // optimiser steps taken; also the index of the next batch to draw
  uint64_t seed = 0;
  vocoder::WaveNetConfig config;
  kernels::MelConfig features;
  // The corpus folders the run trains on (recorded_folder), as "data" in checkpoint.json; a resume
  // refuses other ones (check_run_inputs). Null writes none.
  nlohmann::json data;
  kernels::ParameterSet weights, ema, first_moment, second_moment;
  BatchLayout batch;  // recorded (batch_layout_json), checked on resume by check_resume_batch
  // The loss scaler's state when the run scales its loss ("loss_scale" in checkpoint.json, absent
  // otherwise, so that an unscaled run's checkpoint is what it always was); a resume reads it back.
  std::optional<LossScaleState> loss_scale;
};

void save_vocoder_checkpoint(const std::filesystem::path& out_dir,
                             const VocoderTrainingState& state);

// OUT/checkpoint.json, for a run about to resume (read_checkpoint_header in checkpoint_files.h).
nlohmann::json read_vocoder_checkpoint_header(const std::filesystem::path& out_dir,
                                              std::vector<std::string>* warnings = nullptr);

// Reads OUT/checkpoint.json and its weights into `state` (whose parameter sets must already have
// the model's layout), verifying the checksums it records; an older checkpoint without them adds
// a warning to `warnings`. Throws std::runtime_error naming the file when anything does not match.
void load_vocoder_checkpoint(const std::filesystem::path& out_dir, VocoderTrainingState& state,
                             std::vector<std::string>* warnings = nullptr);

}  // namespace tts::train
