// What a `tts voices create` work folder remembers between runs (WORK/state.json): the arguments
// it was started with, the stages finished, the training plans, the vocoder chosen and the wall
// time spent, so that running the command again resumes where it stopped.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tts/voice_creation/training_plan.h"
#include "tts/voice_creation/vocoder_fit.h"

namespace tts::creation {

struct VoiceCreationOptions;

struct CreationState {
  nlohmann::json arguments;       // what must not change between runs
  std::vector<std::string> done;  // stages finished, in order
  std::optional<TrainingPlan> plan;
  std::optional<int64_t> vocoder_steps;  // the vocoder's fine-tuning steps, once planned
  std::optional<VocoderChoice> vocoder;  // once judged
  double elapsed_seconds = 0.0;          // wall time of every run so far
  std::map<std::string, double> stage_seconds;
  bool finished(const std::string& stage) const;
};

// Makes the work folder and its state, or reads the state a previous run left. Throws
// std::runtime_error when that run had other arguments (naming them), since its work would not
// be this run's.
CreationState open_creation_state(const VoiceCreationOptions& options);

// Written atomically.
void save_creation_state(const std::filesystem::path& work, const CreationState& state);

}  // namespace tts::creation
