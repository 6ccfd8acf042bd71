// Acoustic-model training checkpoints, as for the vocoder (vocoder_checkpoint.h):
// OUT/checkpoint.json (step, seed, config, features, which weights file) beside
// OUT/checkpoint-STEP.safetensors (weights, EMA weights, Adam moments). The JSON is written last
// and is the commit point.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tts/acoustic/config.h"
#include "tts/kernels/mel.h"
#include "tts/kernels/parameter_set.h"
#include "tts/train/batch_layout.h"
#include "tts/train/loss_scaler.h"

namespace tts::train {

struct AcousticTrainingState {
  int64_t step = 0;       // optimiser steps taken; also the index of the next batch
  uint64_t seed = 0;      // of the batches and dropout: the winning candidate's after restarts
  uint64_t run_seed = 0;  // the run's --seed, which the restarts' seeds derive from
  acoustic::AcousticConfig config;
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

void save_acoustic_checkpoint(const std::filesystem::path& out_dir,
                              const AcousticTrainingState& state);

// OUT/checkpoint.json, for a run about to resume (read_checkpoint_header in checkpoint_files.h).
nlohmann::json read_acoustic_checkpoint_header(const std::filesystem::path& out_dir,
                                               std::vector<std::string>* warnings = nullptr);

// Reads OUT/checkpoint.json and its weights into `state`, whose config and parameter layouts must
// already be this run's, verifying the checksums it records; an older checkpoint without them adds
// a warning to `warnings`. Throws std::runtime_error naming the file when anything does not match.
// `run_seed` is taken from the checkpoint where it records one (older ones do not).
void load_acoustic_checkpoint(const std::filesystem::path& out_dir, AcousticTrainingState& state,
                              std::vector<std::string>* warnings = nullptr);

}  // namespace tts::train
