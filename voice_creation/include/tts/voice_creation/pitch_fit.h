// The pitch spread of a new voice fitted by listening to it: the voice speaks the prompts its
// training validated on (never trained on), and the factor that stretches its predicted pitch
// (AcousticConfig:: pitch_spread) is moved until the F0 spread of what it says matches the
// recordings'. The predictor's own shortfall (tts train calibrate-pitch) is where it starts; how
// much flatter the decoder renders the contour than it is given differs from speaker to speaker
// (1.46 times that for June, about 2.25 for Carlo in the project's own recipe), which a fixed
// factor cannot know. The F0 is measured as the report measures it, by Praat where it is installed
// (the engine's own tracker, kernels/pitch.h, measures a synthesised voice's spread wider than
// Praat does and a recording's narrower, so matching by it left June's voice 0.69 semitones flat by
// Praat), and never on the held-out prompts that judge the voice. Not on the prompts it trained on
// either: there its predicted pitch is nearer the recordings' and needs less stretch than on new
// text (June: 4.84 semitones against 4.41 at a spread that matched her held-out prompts).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tts/voice_creation/pitch_range.h"

namespace tts::creation {

struct PitchFitOptions {
  std::filesystem::path model_dir;    // the acoustic model (its acoustic.json is updated)
  std::filesystem::path vocoder_dir;  // the vocoder the voice will speak through
  std::filesystem::path corpus_dir;   // the folder the model was trained on
  std::filesystem::path work_dir;     // scratch: the trial voices
  std::string espeak_voice;
  int prompts = 48;  // at most this many of the validation prompts spoken each trial
  // Fewer validation prompts than this (a corpus of a few minutes) keep the calibrated spread: a
  // bootstrap of one or two prompts cannot say how loosely they measure it.
  int min_prompts = 4;
  int trials = 5;  // at most this many spreads tried; the one nearest the recordings is kept
  // Semitones: the calibrated spread is kept when the voice is this near the recordings, and a
  // trial this near ends the search: half the report's margin of 0.6 at the least, and more when
  // the prompts measure the difference more loosely than that. A couple of dozen prompts of
  // varied length measure it loosely (docs/voice-creation.md, "Why these defaults"). So the
  // tolerance is `standard_errors` times the difference's standard error, from a paired
  // bootstrap of the prompts (`bootstrap_rounds` resamplings), when that is larger.
  double close_enough = 0.25;
  double standard_errors = 2.0;
  int bootstrap_rounds = 400;
  // The spread stays within this factor of the calibrated one: the decoder renders a wider
  // spread less and less (Carlo's voice: 4.47, 4.87, 4.98, 5.06 semitones at spreads 2.17, 2.95,
  // 3.82, 4.00), so chasing the last few tenths of a semitone drove his to the end of the range,
  // where the voice lost 3 dB of harmonicity to artefacts.
  double max_stretch = 1.5;
  uint64_t seed = 1;
  int threads = 2;
};

struct PitchTrial {
  double pitch_spread = 0.0, f0_sd_semitones = 0.0;
};

struct PitchFit {
  std::string tracker;            // what measured the F0: Praat, or the engine's own tracker
  PitchRange range;               // the recordings' (pitch_range.h): every spread is within it
  double recordings_f0_sd = 0.0;  // semitones, pooled over the prompts' voiced frames
  double standard_error = 0.0;    // of the voice's spread less the recordings', semitones
  std::vector<PitchTrial> trials;
  double pitch_spread = 0.0;  // the one kept, written into the model
};

// Throws std::runtime_error when the prompts or the voice cannot be read. Recordings with too
// little voiced sound to measure keep the calibrated spread (no trials), as `note` says.
PitchFit fit_pitch_spread(const PitchFitOptions& options,
                          const std::function<void(const std::string&)>& note);

// The spread kept after `trials` (the first is the calibrated one): the trial nearest `target`,
// when it is nearer than the first by more than `by_at_least` semitones; else the first. A
// spread that did not move the voice's F0 spread (on rough audio Praat hears the vocoder's
// jitter, which no spread changes) is no reason to leave the calibration.
double kept_spread(const std::vector<PitchTrial>& trials, double target, double by_at_least);

// The standard error of the pooled F0 spread of `voice` less that of `recordings` (each the F0
// tracks of the same prompts, in the same order), by resampling the prompts with replacement
// `rounds` times, seeded: how much the difference measured on these prompts says about others.
double paired_spread_standard_error(const std::vector<std::vector<float>>& voice,
                                    const std::vector<std::vector<float>>& recordings,
                                    uint64_t seed, int rounds, const PitchRange& range = {});

// The standard deviation, in semitones re 100 Hz, of every voiced frame of `f0_hz` within
// `range`, pooled (0 Hz marks an unvoiced frame); 0 below two such frames.
double pooled_f0_sd_semitones(const std::vector<std::vector<float>>& f0_hz,
                              const PitchRange& range = {});

}  // namespace tts::creation
