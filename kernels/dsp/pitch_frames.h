// What track_pitch (pitch.cpp) and StreamingPitchTracker (pitch_stream.cpp) share: aubio's YIN
// estimate of one frame on a window placed around the frame's centre, and the median of F0 values.
// Internal to the kernels library: aubio's types stay out of the public headers.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tts/kernels/mel.h"
#include "tts/kernels/pitch.h"

namespace tts::kernels::detail {

// The analysis window in samples: config.window_s rounded to an even number.
int pitch_window_samples(const PitchConfig& config, int sample_rate);

// aubio's raw reading of one frame, before any voicing decision.
struct RawPitchFrame {
  float f0 = 0.0f;          // Hz, 0 when aubio found none
  float confidence = 0.0f;  // aubio's (1 for yinfft, which reports none)
  float power_db = 0.0f;    // mean power of the window, dB re full scale (-inf for silence)
};

// One aubio detector and where each frame's window lies. Not thread-safe (the detector has
// buffers); each tracker owns one.
class YinFrames {
 public:
  // Validates `config` (std::invalid_argument naming the field).
  YinFrames(const MelConfig& features, const PitchConfig& config);
  ~YinFrames();
  YinFrames(const YinFrames&) = delete;
  YinFrames& operator=(const YinFrames&) = delete;

  // Frame f's window is samples [window_start(f), window_start(f) + window()).
  int window() const { return window_; }
  std::ptrdiff_t window_start(std::size_t f) const;

  // Frame f of a signal whose samples [begin, end) are at x[0 .. end - begin) (x[j - begin] is
  // sample j); samples outside [begin, end) read as zero, so `end` must be the signal's end or at
  // least window_start(f) + window().
  RawPitchFrame analyse(std::size_t f, const float* x, std::ptrdiff_t begin, std::ptrdiff_t end);

 private:
  class Detector;
  std::unique_ptr<Detector> detector_;
  int window_;
  std::ptrdiff_t hop_, centre_offset_, anchor_;
};

// Median of the values (the mean of the two middle ones for an even count); not empty.
float median_of(std::vector<float> values);

}  // namespace tts::kernels::detail
