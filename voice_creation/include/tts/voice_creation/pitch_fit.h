// The pitch spread of a new voice fitted by listening to it: the voice speaks some of its own
// training prompts, and the factor that stretches its predicted pitch (AcousticConfig::
// pitch_spread) is moved until the F0 spread of what it says matches the recordings'. The
// predictor's own shortfall (tts train calibrate-pitch) is where it starts; how much flatter the
// decoder renders the contour than it is given differs from speaker to speaker (1.46 times that
// for June, about 2.25 for Carlo in the project's own recipe), which a fixed factor cannot know.
// The F0 is the engine's own tracker's (kernels/pitch.h), not the report's judge (Praat), and the
// prompts are training prompts, never the held-out ones.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tts::creation {

struct PitchFitOptions {
  std::filesystem::path model_dir;    // the acoustic model (its acoustic.json is updated)
  std::filesystem::path vocoder_dir;  // the vocoder the voice will speak through
  std::filesystem::path corpus_dir;   // LJSpeech folder of the training prompts
  std::filesystem::path work_dir;     // scratch: the trial voices
  std::string espeak_voice;
  int prompts = 16;  // training prompts spoken each trial (the longest-spaced over the corpus)
  int trials = 5;    // at most this many spreads tried; the one nearest the recordings is kept
  double close_enough = 0.05;  // semitones: a trial this near the recordings ends the search
  uint64_t seed = 1;
  int threads = 2;
};

struct PitchTrial {
  double pitch_spread = 0.0, f0_sd_semitones = 0.0;
};

struct PitchFit {
  double recordings_f0_sd = 0.0;  // semitones, pooled over the prompts' voiced frames
  std::vector<PitchTrial> trials;
  double pitch_spread = 0.0;  // the one kept, written into the model
};

// Throws std::runtime_error when the prompts or the voice cannot be read, or the recordings
// have too little voiced sound to measure.
PitchFit fit_pitch_spread(const PitchFitOptions& options,
                          const std::function<void(const std::string&)>& note);

// The standard deviation, in semitones re 100 Hz, of every voiced frame of `f0_hz` pooled
// (0 Hz marks an unvoiced frame); 0 below two voiced frames.
double pooled_f0_sd_semitones(const std::vector<std::vector<float>>& f0_hz);

}  // namespace tts::creation
