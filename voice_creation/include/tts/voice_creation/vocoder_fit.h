// The vocoder of a new voice: the shared vocoder as it is, or that vocoder fine-tuned on the new
// voice's own recordings, when the budget leaves time for it and the held-out prompts say it
// helps. Both are judged the same way, by copy-synthesis of the held-out prompts (each recording's
// own log-mel frames through the vocoder, the best it can do for that voice): the log-mel distance
// of what it makes to the recording and, where Praat is installed, Praat's HNR. The fine-tuned one
// is kept only when it is nearer the recordings and no less harmonic; otherwise the voice speaks
// through the shared one. A short fine-tune moves a vocoder little from where it started, and the
// shared vocoder may already know the speaker (the bundled voices' speakers trained it), so the
// choice is measured for every voice rather than assumed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tts/kernels/device.h"
#include "tts/train/training_loop.h"

namespace tts::creation {

// The copy-synthesis of the held-out prompts through one vocoder.
struct CopySynthesisScore {
  double mel_distance = 0.0;     // mean absolute log-mel difference to the recordings
  std::optional<double> hnr_db;  // Praat's, pooled over voiced frames; nothing without Praat
};

struct VocoderChoice {
  int64_t steps = 0;  // fine-tuning steps trained; 0: not tried (`why` says why)
  std::string why;    // why it was not tried, or what the judging found
  std::optional<CopySynthesisScore> shared, tuned;
  bool tuned_kept = false;
  // One line for the model card and the summary.
  std::string describe() const;
};
void to_json(nlohmann::json& j, const VocoderChoice& c);
void from_json(const nlohmann::json& j, VocoderChoice& c);

struct VocoderFitOptions {
  std::filesystem::path shared_dir;    // the vocoder fine-tuning starts from
  std::filesystem::path corpus_dir;    // the recordings it trains on (LJSpeech folder)
  std::filesystem::path held_out_dir;  // the prompts that judge both (LJSpeech folder)
  std::filesystem::path work_dir;      // run/ (the fine-tuning), judged/ (the audio and Praat)
  int64_t steps = 0;                   // fine-tuning steps (resumed from run/'s checkpoint)
  float learning_rate = 5e-4f;         // half the trainer's default: it starts from a trained model
  uint64_t seed = 1;
  int threads = 2;
  kernels::DeviceChoice device;
  train::ProgressCallback progress;  // after each step
};

// The fine-tuned vocoder's folder under `work_dir` (vocoder.json and vocoder.safetensors).
std::filesystem::path tuned_vocoder_dir(const std::filesystem::path& work_dir);

// Trains `steps` steps (or resumes them), then judges the shared and the fine-tuned vocoder on
// the held-out prompts and chooses. `log` receives the trainer's lines; `note` a line per
// measurement. Throws std::runtime_error when training or judging fails.
VocoderChoice fit_vocoder(const VocoderFitOptions& options, std::ostream& log,
                          const std::function<void(const std::string&)>& note);

// Seconds each step of fine-tuning takes here, from `probe_steps` steps trained into work_dir's
// run (which fit_vocoder then resumes), and the seconds the run spent reading the corpus first.
struct VocoderStepTiming {
  double seconds_per_step = 0.0, load_seconds = 0.0;
};
VocoderStepTiming time_vocoder_steps(const VocoderFitOptions& options, int64_t probe_steps,
                                     std::ostream& log);

// The copy-synthesis of every prompt in `held_out_dir` through the vocoder in `vocoder_dir`, its
// audio written to `audio_dir` (ID.wav) and measured by Praat (its files in `audio_dir`) when
// Praat is installed.
CopySynthesisScore score_copy_synthesis(const std::filesystem::path& vocoder_dir,
                                        const std::filesystem::path& held_out_dir,
                                        const std::filesystem::path& audio_dir, uint64_t seed,
                                        int threads);

}  // namespace tts::creation
