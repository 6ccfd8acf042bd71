// Which voices `tts serve` serves: those named with --voice, or, without it, every voice on the
// search path; and those in each --voices-dir either way. Every voice found later (a voice made
// with `tts voices create`, installed with `tts voices install`) joins on a reload (SIGHUP).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tts/kernels/compact_matrix.h"
#include "tts/serve/speech_service.h"

namespace tts::cli {

struct ServedVoiceChoice {
  std::vector<std::string> names;                 // --voice: these only (the first is the default)
  std::vector<std::filesystem::path> voice_dirs;  // --voices-dir: every voice in each, as well
  // --weights: every voice's CPU sampling weights (engine::Voice::load).
  kernels::WeightPrecision sampling_weights = kernels::default_weight_precision();
};

// The voices to serve at start. A voice named with --voice that cannot be loaded is an error
// (thrown); one found by searching is skipped with a line to `warn`, so that one broken voice in a
// folder does not keep the server from starting. Without --voice, `default` (when found) comes
// first and is the default voice; the rest follow by name. Throws std::runtime_error when there is
// no voice to serve, and std::invalid_argument when a name is served twice.
std::vector<serve::ServedVoice> voices_to_serve(
    const ServedVoiceChoice& choice, const std::function<void(const std::string&)>& warn);

// The voices found now that `served` does not hold (by name), loaded; those that fail to load are
// skipped with a line to `warn`. Without --voice the whole search path is looked at again, with it
// only the --voices-dir folders.
std::vector<serve::ServedVoice> voices_found_since(
    const ServedVoiceChoice& choice, const std::vector<serve::ServedVoice>& served,
    const std::function<void(const std::string&)>& warn);

}  // namespace tts::cli
