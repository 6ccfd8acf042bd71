#include "tts/kernels/psola.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tts::kernels {

namespace {

// A pitch mark: where a grain is centred, and the period there (0 where unvoiced).
struct Mark {
  std::size_t at;
  double period;
};

// Grains of unvoiced sound are this long (half of it either side of the mark) and this far apart:
// windows of 2 steps at a spacing of one add up to one, so unvoiced sound comes back unchanged.
constexpr double kUnvoicedStepSeconds = 0.005;

// Marks one period apart through voiced stretches, each on the largest sample of a lightly
// smoothed copy of the signal near where the period says the next one is (the same point of every
// cycle, so that grains line up); marks a fixed step apart where the tracker hears no pitch.
std::vector<Mark> analysis_marks(const float* x, std::size_t n, const std::vector<float>& f0,
                                 int sample_rate, int hop, double unvoiced_step) {
  // A 1 ms moving average keeps the peak picking off single noisy samples.
  const std::size_t half = static_cast<std::size_t>(sample_rate / 2000);
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + x[i];
  auto smooth = [&](std::size_t i) {
    const std::size_t lo = i >= half ? i - half : 0, hi = std::min(n, i + half + 1);
    return (prefix[hi] - prefix[lo]) / static_cast<double>(hi - lo);
  };
  auto period_at = [&](double t) {
    if (f0.empty()) return 0.0;
    const auto frame = static_cast<std::size_t>(
        std::clamp<long>(std::lround(t / hop), 0, static_cast<long>(f0.size()) - 1));
    return f0[frame] > 0.0f ? sample_rate / static_cast<double>(f0[frame]) : 0.0;
  };
  std::vector<Mark> marks;
  double t = 0.0;
  while (t < static_cast<double>(n)) {
    const double period = period_at(t);
    if (period <= 0.0) {
      marks.push_back({static_cast<std::size_t>(t), 0.0});
      t += unvoiced_step;
      continue;
    }
    // After a voiced mark the next is about one period on; entering a voiced stretch, anywhere
    // in the first period.
    const bool follows = !marks.empty() && marks.back().period > 0.0;
    const double from = follows ? static_cast<double>(marks.back().at) + 0.75 * period : t;
    const double to = follows ? static_cast<double>(marks.back().at) + 1.25 * period : t + period;
    auto lo = static_cast<std::size_t>(std::max(0.0, std::ceil(from)));
    if (!marks.empty()) lo = std::max(lo, marks.back().at + 1);
    const auto hi = static_cast<std::size_t>(std::min(static_cast<double>(n), to));
    if (lo >= hi) break;
    std::size_t best = lo;
    for (std::size_t i = lo; i < hi; ++i)
      if (smooth(i) > smooth(best)) best = i;
    marks.push_back({best, period});
    t = static_cast<double>(best) + period;
  }
  return marks;
}

// Grains of neighbouring periods overlap out of phase where the spacing changes, which loses 1-6
// dB (measured on speech, more the larger the shift): each frame of `shifted` is brought back to
// the loudness of the same frame of `original` (RMS over two hops, the gain interpolated between
// frame centres and kept within ±12 dB, so that silence is never blown up).
void match_loudness(const float* original, std::vector<float>& shifted, int hop) {
  const std::size_t n = shifted.size();
  const auto step = static_cast<std::size_t>(hop);
  const std::size_t frames = n / step + 1;
  std::vector<double> gain(frames, 1.0);
  for (std::size_t f = 0; f < frames; ++f) {
    const std::size_t centre = f * step, lo = centre >= step ? centre - step : 0,
                      hi = std::min(n, centre + step);
    double in = 0.0, out = 0.0;
    for (std::size_t i = lo; i < hi; ++i) {
      in += static_cast<double>(original[i]) * original[i];
      out += static_cast<double>(shifted[i]) * shifted[i];
    }
    if (out > 1e-12 && in > 1e-12) gain[f] = std::clamp(std::sqrt(in / out), 0.25, 4.0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t f = i / step;
    const double w = static_cast<double>(i - f * step) / static_cast<double>(step);
    const double g = f + 1 < frames ? (1.0 - w) * gain[f] + w * gain[f + 1] : gain[f];
    shifted[i] = static_cast<float>(shifted[i] * g);
  }
}

}  // namespace

std::vector<float> shift_pitch(const float* samples, std::size_t n, const MelConfig& features,
                               float semitones, const PitchConfig& pitch) {
  if (!std::isfinite(semitones) || std::fabs(semitones) > 24.0f)
    throw std::invalid_argument("shift_pitch: the shift must be within ±24 semitones, not " +
                                std::to_string(semitones));
  if (n == 0) return {};
  if (semitones == 0.0f) return std::vector<float>(samples, samples + n);
  const double ratio = std::pow(2.0, static_cast<double>(semitones) / 12.0);
  const int rate = features.sample_rate;
  const double unvoiced_step = kUnvoicedStepSeconds * rate;
  const std::vector<float> f0 = track_pitch(samples, n, features, pitch);
  const std::vector<Mark> marks =
      analysis_marks(samples, n, f0, rate, features.hop_length, unvoiced_step);

  // Synthesis marks walk the same time axis at the new spacing; each takes the grain of the
  // analysis mark nearest to it (a grain is repeated or skipped as the spacing asks).
  std::vector<double> out(n, 0.0), weight(n, 0.0);
  std::size_t k = 0;
  for (double ts = 0.0; ts < static_cast<double>(n) && !marks.empty();) {
    while (k + 1 < marks.size() && std::fabs(static_cast<double>(marks[k + 1].at) - ts) <=
                                       std::fabs(static_cast<double>(marks[k].at) - ts))
      ++k;
    const Mark& m = marks[k];
    const double span = m.period > 0.0 ? m.period : unvoiced_step;
    const long reach = std::max(1L, std::lround(span));
    const long source = static_cast<long>(m.at), target = std::lround(ts);
    for (long j = -reach; j <= reach; ++j) {
      const long s = source + j, d = target + j;
      if (s < 0 || d < 0 || s >= static_cast<long>(n) || d >= static_cast<long>(n)) continue;
      const double w = 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(j) / reach));
      out[static_cast<std::size_t>(d)] += w * samples[s];
      weight[static_cast<std::size_t>(d)] += w;
    }
    ts += m.period > 0.0 ? m.period / ratio : unvoiced_step;
  }
  // Raising the pitch overlaps more grains (their windows add up to about the ratio): dividing by
  // the windows' sum keeps the level of what adds in phase. Lowering it leaves dips between
  // grains, which are kept, not amplified.
  std::vector<float> shifted(n);
  for (std::size_t i = 0; i < n; ++i)
    shifted[i] = static_cast<float>(out[i] / std::max(weight[i], 1.0));
  match_loudness(samples, shifted, features.hop_length);
  return shifted;
}

}  // namespace tts::kernels
