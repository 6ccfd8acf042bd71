// `tts voices create`: a folder of one person's recordings in, an installed voice with its
// measured report out. Stages, each recorded in the work folder when done so that running the
// command again resumes after the last one finished (training resumes from its checkpoint):
//
//   intake    recordings checked, trimmed, levelled, resampled (intake.h)
//   split     held-out prompts chosen (held_out.h)
//   plan      a few training steps timed; the steps that fit the budget chosen (plan.h)
//   training  the shipped base's acoustic model fine-tuned on the recordings
//   pitch     the pitch spread calibrated, then fitted by listening to the voice (pitch_fit.h)
//   vocoder   the shared vocoder fine-tuned on the recordings in what the budget leaves, kept
//             when the held-out prompts say it helps (vocoder_fit.h)
//   pack      the voice assembled with the vocoder chosen
//   report    the held-out prompts judged: HNR and F0 by Praat, aligned log-mel distance,
//             real-time factor; PASS/FAIL against the targets; MODEL_CARD.md (report.h)
//   install   the voice moved into place
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tts/kernels/device.h"
#include "tts/train/training_loop.h"
#include "tts/voice_creation/report.h"

namespace tts::creation {

struct VoiceCreationOptions {
  std::string name;                // the voice's name (a folder name: letters, digits, - _ .)
  std::filesystem::path data_dir;  // the recordings (intake.h)
  std::string language = "en-US";  // BCP 47 tag of what they say
  std::string espeak_voice;        // empty: the espeak-ng voice of `language`
  std::string speaker, sex, licence = "CC-BY-4.0", source, description;
  double budget_minutes = 30.0;  // wall time on this machine, everything included
  // Steps of training instead of what the budget allows (reproducible runs, tests).
  std::optional<int64_t> steps;
  // Steps of fine-tuning the vocoder instead of what the budget leaves (0: never). A run given
  // `steps` fine-tunes the vocoder only when these are given too.
  std::optional<int64_t> vocoder_steps;
  kernels::DeviceChoice device;
  // Where the voice goes: its folder (default: NAME in the user's voice folder).
  std::filesystem::path out_dir;
  // Where the stages keep their work (default: $XDG_CACHE_HOME/tts/voices-create/NAME).
  std::filesystem::path work_dir;
  // The acoustic base and vocoder (default: base/ and shared-vocoder/ on the voice search path).
  std::filesystem::path base_dir, vocoder_dir;
  // The prompts to hold out, one id a line, instead of the seeded choice (to judge two voices on
  // the same prompts).
  std::filesystem::path held_out_file;
  uint64_t seed = 1;
  double minimum_minutes = 5.0;  // less usable audio than this is refused
  int threads = 2;
};

// The stages, in the order they run (the names CreationObserver::stage is given).
const std::vector<std::string>& creation_stages();

// What a person watching is told. Every call comes from the thread that called create_voice.
class CreationObserver {
 public:
  virtual ~CreationObserver() = default;
  virtual void stage(const std::string& name, const std::string& what) = 0;
  virtual void line(const std::string& text) = 0;  // a line of results or a warning
  // During training: the step just taken and the minutes the whole command has left by the plan.
  virtual void training(const train::TrainingProgress& progress, double minutes_left) = 0;
};

struct CreatedVoice {
  std::filesystem::path folder;  // where it is installed
  VoiceReport report;
  double minutes = 0.0;  // wall time of every run of the command on this work folder
};

// The options with every default filled in (the espeak-ng voice, base, vocoder, voice and work
// folders) and every path absolute. Throws std::invalid_argument for a bad name or language,
// std::runtime_error when a default cannot be found.
VoiceCreationOptions resolve_defaults(VoiceCreationOptions options);

// Runs (or resumes) every stage. Throws std::runtime_error naming the stage and what went wrong;
// the work folder keeps what was finished.
CreatedVoice create_voice(const VoiceCreationOptions& options, CreationObserver& observer);

// The espeak-ng voice that reads a BCP 47 tag ("fr-CA" → "fr-fr", "es-MX" → "es-419"): the tag
// itself, a known regional stand-in, or its primary language. Throws std::invalid_argument when
// espeak-ng has none.
std::string espeak_voice_of(const std::string& tag);

}  // namespace tts::creation
