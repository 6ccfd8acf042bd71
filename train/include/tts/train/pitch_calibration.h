// How far a finished acoustic model's pitch predictions fall short of the spread of the pitch
// they were trained on, and the factor that restores it (AcousticConfig::pitch_spread). A predictor
// trained on squared error regresses toward the mean: over the training recordings, each
// utterance's predicted token pitch varies less around its own mean than the recording's token
// targets do. The factor is the ratio of the two spreads, pooled over utterances (the global
// variance compensation of HMM synthesis, applied to pitch).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

namespace tts::train {

struct PitchCalibrationOptions {
  std::filesystem::path model_dir;  // a `tts train acoustic` OUT (or acoustic-average's)
  std::filesystem::path data_dir;   // its training corpus; only the training split is used
  std::string language = "en-us";
  int loader_threads = 2;
  bool write = true;  // store the factor in model_dir/acoustic.json
  // Multiplies the measured factor: the contour the decoder renders is flatter than the predicted
  // one it is given (within-phone movement the per-token targets lack; a mixed decoder follows
  // only in part), so a voice may need more than the predictions' own shortfall. 1 = the measured
  // factor alone.
  double extra_stretch = 1.0;
};

struct PitchCalibration {
  int utterances = 0;
  long tokens = 0;                // sounding tokens measured
  double target_spread = 0.0;     // pooled SD of the token targets around each utterance's mean
  double predicted_spread = 0.0;  // the same for the predictions (normalised pitch units)
  double pitch_spread = 1.0;      // extra_stretch · target_spread / predicted_spread, in [0.25, 4]
  double previous_spread = 1.0;   // the model's factor before
};

// Aligns each training recording with the model's aligner (as training does), compares the
// predictor's token pitch with the recording's, and, with options.write, writes the factor into
// the model's acoustic.json (atomically). Throws std::runtime_error for a model without a pitch
// predictor or an unreadable model or corpus.
PitchCalibration calibrate_pitch_spread(const PitchCalibrationOptions& options, std::ostream& log);

// Sets the pitch spread in an exported model's acoustic.json (atomically) and checks that the
// model still loads.
void write_pitch_spread(const std::filesystem::path& model_dir, double pitch_spread);

}  // namespace tts::train
