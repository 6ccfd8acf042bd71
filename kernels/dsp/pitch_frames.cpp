// aubio's YIN on one frame's window (see pitch_frames.h; the placement is in docs/pitch.md).
#include "pitch_frames.h"

#include <aubio/aubio.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#include "tts/kernels/stft.h"

namespace tts::kernels::detail {

int pitch_window_samples(const PitchConfig& config, int sample_rate) {
  const long w = std::lround(static_cast<double>(config.window_s) * sample_rate / 2.0) * 2;
  return static_cast<int>(std::min<long>(w, std::numeric_limits<int>::max() / 2));
}

// One aubio detector (aubio objects hold their own buffers, so separate objects are independent).
// aubio's FFT-based detectors (yinfast, yinfft) make FFTW plans in new_aubio_pitch and destroy
// them in del_aubio_pitch under aubio's own mutex, which does not exclude this program's other
// FFTW planners (MagnitudeStft): both calls therefore also hold fftw_planner_mutex().
// (aubio_pitch_do only executes plans, which FFTW allows concurrently.)
class YinFrames::Detector {
 public:
  Detector(const std::string& method, int window, int sample_rate) : yinfft_(method == "yinfft") {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    // hop == buffer: every call hands aubio a whole window, so its internal sliding buffer is
    // exactly the window given, with no delay to compensate.
    pitch_ = new_aubio_pitch(method.c_str(), static_cast<uint_t>(window),
                             static_cast<uint_t>(window), static_cast<uint_t>(sample_rate));
    in_ = new_fvec(static_cast<uint_t>(window));
    out_ = new_fvec(1);
    if (pitch_ == nullptr || in_ == nullptr || out_ == nullptr) {
      release();
      throw std::runtime_error("aubio could not create a \"" + method + "\" pitch detector");
    }
    aubio_pitch_set_unit(pitch_, "Hz");
    aubio_pitch_set_silence(pitch_, -200.0f);  // silence is judged by the caller, on the window
  }
  ~Detector() {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    release();
  }
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  void set_tolerance(float tolerance) { aubio_pitch_set_tolerance(pitch_, tolerance); }
  float* input() { return in_->data; }
  // F0 in Hz (0 when aubio found none) and aubio's confidence for the window in input().
  void run(float& f0, float& confidence) {
    aubio_pitch_do(pitch_, in_, out_);
    f0 = out_->data[0];
    // aubio 0.4.9's yinfft never records its chosen lag for periods longer than 1/1300 s, so its
    // confidence reads the lag-0 value and is always 0; there the tolerance alone decides (aubio
    // returns 0 Hz when the normalised difference never dips below it).
    confidence = yinfft_ ? 1.0f : aubio_pitch_get_confidence(pitch_);
  }

 private:
  void release() {
    if (pitch_ != nullptr) del_aubio_pitch(pitch_);
    if (in_ != nullptr) del_fvec(in_);
    if (out_ != nullptr) del_fvec(out_);
    pitch_ = nullptr;
    in_ = out_ = nullptr;
  }
  bool yinfft_;
  aubio_pitch_t* pitch_ = nullptr;
  fvec_t* in_ = nullptr;
  fvec_t* out_ = nullptr;
};

YinFrames::YinFrames(const MelConfig& features, const PitchConfig& config) {
  config.validate(features);
  window_ = pitch_window_samples(config, features.sample_rate);
  hop_ = features.hop_length;
  // MagnitudeStft's frame centres.
  centre_offset_ = features.center ? 0 : static_cast<std::ptrdiff_t>(features.n_fft / 2);
  // Where in aubio's buffer the frame centre goes. yinfft weights the whole buffer with a Hann
  // window, so its centre is the buffer's middle. yin (and yinfast, the same sums by FFT)
  // compares x[j] with x[j + tau] for j < window/2, spanning [0, window/2 + tau): its centre
  // moves with the period; the period at the middle of the F0 range (geometric mean) is used.
  // tests/pitch_tracker_test.cpp checks the placement with an F0 step (docs/pitch.md).
  anchor_ = window_ / 2;
  if (config.method != "yinfft") {
    const double mid_period = features.sample_rate / std::sqrt(double{config.fmin} * config.fmax);
    anchor_ = static_cast<std::ptrdiff_t>(std::lround((window_ / 2 + mid_period) / 2));
  }
  detector_ = std::make_unique<Detector>(config.method, window_, features.sample_rate);
  detector_->set_tolerance(config.tolerance);
}

YinFrames::~YinFrames() = default;

std::ptrdiff_t YinFrames::window_start(std::size_t f) const {
  return static_cast<std::ptrdiff_t>(f) * hop_ + centre_offset_ - anchor_;
}

RawPitchFrame YinFrames::analyse(std::size_t f, const float* x, std::ptrdiff_t begin,
                                 std::ptrdiff_t end) {
  // Zero outside the signal: an edge frame sees silence, not a mirrored copy of the speech.
  const std::ptrdiff_t start = window_start(f);
  float* in = detector_->input();
  double energy = 0.0;
  for (int k = 0; k < window_; ++k) {
    const std::ptrdiff_t j = start + k;
    const float v = (j >= begin && j < end) ? x[j - begin] : 0.0f;
    in[k] = v;
    energy += double{v} * v;
  }
  RawPitchFrame frame;
  const double mean_power = energy / window_;
  frame.power_db = mean_power > 0.0 ? static_cast<float>(10.0 * std::log10(mean_power))
                                    : -std::numeric_limits<float>::infinity();
  detector_->run(frame.f0, frame.confidence);
  return frame;
}

float median_of(std::vector<float> values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  const float upper = *mid;
  const float lower = *std::max_element(values.begin(), mid);
  return 0.5f * (lower + upper);
}

}  // namespace tts::kernels::detail
