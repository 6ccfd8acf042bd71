// F0 per log-mel frame with aubio's YIN detectors. See pitch.h; the tuning is in docs/pitch.md.
#include "tts/kernels/pitch.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "pitch_frames.h"
#include "tts/kernels/pitch_stream.h"

namespace tts::kernels {

namespace {

template <typename T>
[[noreturn]] void bad_field(const char* field, const T& value, const std::string& rule) {
  std::ostringstream message;
  message << "PitchConfig." << field << " = " << value << ": " << rule;
  throw std::invalid_argument(message.str());
}

}  // namespace

void PitchConfig::validate(const MelConfig& features) const {
  features.validate();
  const double nyquist = features.sample_rate / 2.0;
  if (!std::isfinite(fmin) || fmin <= 0.0f) bad_field("fmin", fmin, "must be finite and > 0");
  if (!std::isfinite(fmax) || fmax <= fmin || fmax >= nyquist) {
    std::ostringstream rule;
    rule << "must be > fmin (" << fmin << ") and < sample_rate/2 (" << nyquist << ")";
    bad_field("fmax", fmax, rule.str());
  }
  if (method != "yinfft" && method != "yin" && method != "yinfast")
    bad_field("method", "\"" + method + "\"", "must be \"yinfft\", \"yin\" or \"yinfast\"");
  if (!std::isfinite(window_s) || window_s <= 0.0f || window_s > 1.0f)
    bad_field("window_s", window_s, "must be in (0, 1] seconds");
  // Lags up to half the window: two periods of fmin must fit.
  const double needed = 2.0 * features.sample_rate / fmin;
  if (detail::pitch_window_samples(*this, features.sample_rate) < needed) {
    std::ostringstream rule;
    rule << "must hold two periods of fmin (" << fmin << " Hz): at least " << 2.0 / fmin << " s";
    bad_field("window_s", window_s, rule.str());
  }
  if (!std::isfinite(tolerance) || tolerance <= 0.0f || tolerance > 1.0f)
    bad_field("tolerance", tolerance, "must be in (0, 1]");
  if (!std::isfinite(min_confidence) || min_confidence < 0.0f || min_confidence > 1.0f)
    bad_field("min_confidence", min_confidence, "must be in [0, 1]");
  if (std::isnan(silence_db) || silence_db > 0.0f)
    bad_field("silence_db", silence_db, "must be <= 0 (dB re full scale; -inf turns it off)");
  if (std::isnan(relative_silence_db) || relative_silence_db > 0.0f)
    bad_field("relative_silence_db", relative_silence_db, "must be <= 0 (-inf turns it off)");
  if (!std::isfinite(octave_jump) || octave_jump < 0.0f ||
      (octave_jump > 0.0f && octave_jump < 0.5f))
    bad_field("octave_jump", octave_jump, "must be 0 (off) or >= 0.5 octaves");
  if (octave_context_frames < 1)
    bad_field("octave_context_frames", octave_context_frames, "must be >= 1");
  if (median_frames < 1 || median_frames % 2 == 0)
    bad_field("median_frames", median_frames, "must be odd and >= 1");
  if (min_voiced_frames < 1) bad_field("min_voiced_frames", min_voiced_frames, "must be >= 1");
  if (fill_gap_frames < 0) bad_field("fill_gap_frames", fill_gap_frames, "must be >= 0");
}

std::vector<float> track_pitch(const float* samples, std::size_t n, const MelConfig& features,
                               const PitchConfig& config) {
  // The streaming tracker told to look as far as the whole recording: silence judged against the
  // loudest window of all of it, octave errors against ±octave_context_frames.
  PitchLookahead whole_recording;
  whole_recording.silence_frames = 1 << 30;
  whole_recording.octave_frames = config.octave_context_frames;
  StreamingPitchTracker tracker(features, config, whole_recording);  // validates the config
  tracker.push(samples, n);
  tracker.finish();
  return tracker.f0();
}

}  // namespace tts::kernels
