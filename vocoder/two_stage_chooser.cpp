#include "two_stage_chooser.h"

namespace tts::vocoder {

bool TwoStageChooser::preferred() const {
  if (!measured_[0] || !measured_[1]) return true;  // two stages were asked for; start there
  return seconds_per_sample_[1] <= seconds_per_sample_[0];
}

bool TwoStageChooser::use_two_stages(std::size_t samples) const {
  if (samples < kMinTimedSamples) return preferred();
  // The first timed call measures two stages, the second one thread; after that, one call of the
  // other mode after every kProbeInterval timed calls of the preferred one.
  if (!measured_[1]) return true;
  if (!measured_[0]) return false;
  return timed_since_probe_ >= kProbeInterval ? !preferred() : preferred();
}

void TwoStageChooser::record(bool two_stages, std::size_t samples, double seconds) {
  if (samples < kMinTimedSamples || !(seconds >= 0.0)) return;
  const bool was_probe = measured_[0] && measured_[1] && two_stages != preferred();
  const int mode = two_stages ? 1 : 0;
  const double per_sample = seconds / static_cast<double>(samples);
  // The mode in use is timed on every call: a short average, so one slow call does not decide
  // alone. A probe is the only news of the other mode: it replaces the old figure.
  seconds_per_sample_[mode] =
      measured_[mode] && !was_probe ? 0.5 * (seconds_per_sample_[mode] + per_sample) : per_sample;
  measured_[mode] = true;
  timed_since_probe_ = was_probe ? 0 : timed_since_probe_ + 1;
}

}  // namespace tts::vocoder
