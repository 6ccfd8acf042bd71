// F0 per log-mel frame with aubio's YIN detectors. See pitch.h; the tuning is in docs/pitch.md.
#include "tts/kernels/pitch.h"

#include <aubio/aubio.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tts/kernels/stft.h"

namespace tts::kernels {

namespace {

template <typename T>
[[noreturn]] void bad_field(const char* field, const T& value, const std::string& rule) {
  std::ostringstream message;
  message << "PitchConfig." << field << " = " << value << ": " << rule;
  throw std::invalid_argument(message.str());
}

int window_samples(const PitchConfig& config, int sample_rate) {
  const long w = std::lround(static_cast<double>(config.window_s) * sample_rate / 2.0) * 2;
  return static_cast<int>(std::min<long>(w, std::numeric_limits<int>::max() / 2));
}

// One aubio detector, owned by one call of track_pitch (aubio objects hold their own buffers, so
// separate objects are independent). aubio's FFT-based detectors (yinfast, yinfft) make FFTW
// plans in new_aubio_pitch and destroy them in del_aubio_pitch under aubio's own mutex, which does
// not exclude this program's other FFTW planners (MagnitudeStft): both calls therefore also hold
// fftw_planner_mutex(). (aubio_pitch_do only executes plans, which FFTW allows concurrently.)
class AubioDetector {
 public:
  AubioDetector(const std::string& method, int window, int sample_rate)
      : yinfft_(method == "yinfft") {
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
    aubio_pitch_set_silence(pitch_, -200.0f);  // silence is judged below, on the same window
  }
  ~AubioDetector() {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    release();
  }
  AubioDetector(const AubioDetector&) = delete;
  AubioDetector& operator=(const AubioDetector&) = delete;

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

float median_of(std::vector<float> values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  const float upper = *mid;
  const float lower = *std::max_element(values.begin(), mid);
  return 0.5f * (lower + upper);
}

// [begin, end) runs of voiced frames.
std::vector<std::pair<std::size_t, std::size_t>> voiced_runs(const std::vector<float>& f0) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t f = 0; f < f0.size();) {
    if (f0[f] <= 0.0f) {
      ++f;
      continue;
    }
    std::size_t end = f;
    while (end < f0.size() && f0[end] > 0.0f) ++end;
    runs.emplace_back(f, end);
    f = end;
  }
  return runs;
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
  if (window_samples(*this, features.sample_rate) < needed) {
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
  config.validate(features);
  const auto hop = static_cast<std::size_t>(features.hop_length);
  const auto n_fft = static_cast<std::size_t>(features.n_fft);
  // MagnitudeStft::frame_count and its frame centres.
  const std::size_t frames =
      features.center ? 1 + n / hop : (n < n_fft ? 0 : 1 + (n - n_fft) / hop);
  const std::ptrdiff_t centre_offset = features.center ? 0 : static_cast<std::ptrdiff_t>(n_fft / 2);
  std::vector<float> f0(frames, 0.0f);
  if (frames == 0) return f0;

  const int window = window_samples(config, features.sample_rate);
  // Where in aubio's buffer the frame centre goes. yinfft weights the whole buffer with a Hann
  // window, so its centre is the buffer's middle. yin (and yinfast, the same sums by FFT)
  // compares x[j] with x[j + tau] for j < window/2, spanning [0, window/2 + tau): its centre
  // moves with the period; the period at the middle of the F0 range (geometric mean) is used.
  // tests/pitch_tracker_test.cpp checks the placement with an F0 step (docs/pitch.md).
  std::ptrdiff_t anchor = window / 2;
  if (config.method != "yinfft") {
    const double mid_period = features.sample_rate / std::sqrt(double{config.fmin} * config.fmax);
    anchor = static_cast<std::ptrdiff_t>(std::lround((window / 2 + mid_period) / 2));
  }

  AubioDetector detector(config.method, window, features.sample_rate);
  detector.set_tolerance(config.tolerance);
  std::vector<float> raw(frames), confidence(frames), power_db(frames);
  const auto sn = static_cast<std::ptrdiff_t>(n);
  float* in = detector.input();
  for (std::size_t f = 0; f < frames; ++f) {
    // Zero outside the signal: an edge frame sees silence, not a mirrored copy of the speech.
    const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(f * hop) + centre_offset - anchor;
    double energy = 0.0;
    for (int k = 0; k < window; ++k) {
      const std::ptrdiff_t j = start + k;
      const float v = (j >= 0 && j < sn) ? samples[j] : 0.0f;
      in[k] = v;
      energy += double{v} * v;
    }
    const double mean_power = energy / window;
    power_db[f] = mean_power > 0.0 ? static_cast<float>(10.0 * std::log10(mean_power))
                                   : -std::numeric_limits<float>::infinity();
    detector.run(raw[f], confidence[f]);
  }

  // Voicing: a confident estimate inside [fmin, fmax], in a window that is not silent.
  const float loudest = *std::max_element(power_db.begin(), power_db.end());
  for (std::size_t f = 0; f < frames; ++f) {
    const bool loud_enough =
        power_db[f] >= config.silence_db && power_db[f] >= loudest + config.relative_silence_db;
    const bool in_range = raw[f] >= config.fmin && raw[f] <= config.fmax;
    if (loud_enough && in_range && confidence[f] >= config.min_confidence) f0[f] = raw[f];
  }

  // Octave errors: voiced frames far from the median of the voiced frames around them move by
  // whole octaves toward it (and stay unvoiced if that leaves [fmin, fmax]).
  if (config.octave_jump > 0.0f) {
    std::vector<float> corrected = f0;
    const auto context = static_cast<std::size_t>(config.octave_context_frames);
    std::vector<float> neighbours;
    for (std::size_t f = 0; f < frames; ++f) {
      if (f0[f] <= 0.0f) continue;
      neighbours.clear();
      const std::size_t lo = f > context ? f - context : 0;
      const std::size_t hi = std::min(frames, f + context + 1);
      for (std::size_t g = lo; g < hi; ++g)
        if (f0[g] > 0.0f) neighbours.push_back(std::log2(f0[g]));
      const float reference = median_of(neighbours);
      const float octaves = std::log2(f0[f]) - reference;
      if (std::fabs(octaves) < config.octave_jump) continue;
      const float shifted = f0[f] * std::exp2(-std::round(octaves));
      corrected[f] = (shifted >= config.fmin && shifted <= config.fmax) ? shifted : 0.0f;
    }
    f0 = std::move(corrected);
  }

  // Short gaps between voiced runs are filled (log-linear F0), then short runs removed.
  if (config.fill_gap_frames > 0) {
    const auto runs = voiced_runs(f0);
    for (std::size_t r = 1; r < runs.size(); ++r) {
      const std::size_t gap_begin = runs[r - 1].second, gap_end = runs[r].first;
      if (gap_end - gap_begin > static_cast<std::size_t>(config.fill_gap_frames)) continue;
      const float a = std::log2(f0[gap_begin - 1]), b = std::log2(f0[gap_end]);
      const float span = static_cast<float>(gap_end - gap_begin + 1);
      for (std::size_t g = gap_begin; g < gap_end; ++g)
        f0[g] = std::exp2(a + (b - a) * static_cast<float>(g - gap_begin + 1) / span);
    }
  }
  if (config.min_voiced_frames > 1) {
    for (const auto& [begin, end] : voiced_runs(f0))
      if (end - begin < static_cast<std::size_t>(config.min_voiced_frames))
        std::fill(f0.begin() + static_cast<std::ptrdiff_t>(begin),
                  f0.begin() + static_cast<std::ptrdiff_t>(end), 0.0f);
  }

  // Median filter within each voiced run (the window shrinks at a run's ends).
  if (config.median_frames > 1) {
    const auto half = static_cast<std::size_t>(config.median_frames / 2);
    std::vector<float> smoothed = f0, window_values;
    for (const auto& [begin, end] : voiced_runs(f0)) {
      for (std::size_t f = begin; f < end; ++f) {
        const std::size_t lo = std::max(begin, f >= half ? f - half : 0);
        const std::size_t hi = std::min(end, f + half + 1);
        window_values.assign(f0.begin() + static_cast<std::ptrdiff_t>(lo),
                             f0.begin() + static_cast<std::ptrdiff_t>(hi));
        smoothed[f] = median_of(window_values);
      }
    }
    f0 = std::move(smoothed);
  }
  return f0;
}

}  // namespace tts::kernels
