// F0 per log-mel frame with aubio's YIN detectors. See pitch.h; the tuning is in docs/pitch.md.
#include "tts/kernels/pitch.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "pitch_frames.h"

namespace tts::kernels {

namespace {

template <typename T>
[[noreturn]] void bad_field(const char* field, const T& value, const std::string& rule) {
  std::ostringstream message;
  message << "PitchConfig." << field << " = " << value << ": " << rule;
  throw std::invalid_argument(message.str());
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
  detail::YinFrames yin(features, config);  // validates the config
  const auto hop = static_cast<std::size_t>(features.hop_length);
  const auto n_fft = static_cast<std::size_t>(features.n_fft);
  // MagnitudeStft::frame_count.
  const std::size_t frames =
      features.center ? 1 + n / hop : (n < n_fft ? 0 : 1 + (n - n_fft) / hop);
  std::vector<float> f0(frames, 0.0f);
  if (frames == 0) return f0;

  std::vector<float> raw(frames), confidence(frames), power_db(frames);
  for (std::size_t f = 0; f < frames; ++f) {
    const detail::RawPitchFrame r = yin.analyse(f, samples, 0, static_cast<std::ptrdiff_t>(n));
    raw[f] = r.f0;
    confidence[f] = r.confidence;
    power_db[f] = r.power_db;
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
      const float reference = detail::median_of(neighbours);
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
        smoothed[f] = detail::median_of(window_values);
      }
    }
    f0 = std::move(smoothed);
  }
  return f0;
}

}  // namespace tts::kernels
