#include "tts/voice_creation/pitch_range.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tts::creation {

namespace {

// The q-quantile of sorted values, interpolated between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

bool SemitoneSpread::add(double hz) {
  if (!(hz > 0.0) || !range_.contains(hz)) return false;
  const double st = 12.0 * std::log2(hz / 100.0);
  n_ += 1.0;
  sum_ += st;
  squares_ += st * st;
  return true;
}

double SemitoneSpread::sd() const {
  return n_ >= 2.0 ? std::sqrt(std::max(0.0, (squares_ - sum_ * sum_ / n_) / (n_ - 1.0))) : 0.0;
}

PitchRange speaker_pitch_range(std::vector<double> voiced_hz) {
  voiced_hz.erase(
      std::remove_if(voiced_hz.begin(), voiced_hz.end(), [](double hz) { return !(hz > 0.0); }),
      voiced_hz.end());
  PitchRange range;
  if (voiced_hz.size() < 8) return range;
  std::sort(voiced_hz.begin(), voiced_hz.end());
  range.floor_hz = 0.75 * quantile(voiced_hz, 0.25);
  range.ceiling_hz = 1.5 * quantile(voiced_hz, 0.75);
  return range;
}

}  // namespace tts::creation
