// A studio take as the page sends it: a WAV file of 16-bit PCM, checked before it is stored
// (format, length, level). Internal to tts_serve.
#pragma once

#include <string>

namespace tts::serve {

struct TakeLimits {
  double min_seconds = 0.5, max_seconds = 20.0;
};

struct TakeMeasure {
  int sample_rate = 0;
  double seconds = 0.0;
  double peak_dbfs = -120.0, rms_dbfs = -120.0;
  double clipped = 0.0;  // the fraction of samples at full scale
};

// Reads and measures `wav`; throws StudioError (studio.h) with 415 for what is not a 16-bit PCM
// mono WAV file, 400 for an empty, truncated, too short or too long one, 422 for a take that is
// silent, far too quiet or clipped throughout.
TakeMeasure check_take(const std::string& wav, const TakeLimits& limits);

}  // namespace tts::serve
