// Internal: whether the sampler's two-stage mode is paying for its second thread. The two stages
// hand work to each other about once per layer per sample, which pays only while each has a core
// of its own; on a busy machine a descheduled partner makes the other wait, and two threads can be
// several times slower than one. So the sampler times its calls in the mode it runs, now and then
// runs one call the other way to refresh that estimate, and keeps to the faster. The audio does not
// depend on the mode.
#pragma once

#include <cstddef>

namespace tts::vocoder {

class TwoStageChooser {
 public:
  // Calls shorter than this are run in the preferred mode but not timed (too noisy).
  static constexpr std::size_t kMinTimedSamples = 512;
  // After this many timed calls in one mode, one call runs in the other to refresh its estimate.
  static constexpr int kProbeInterval = 16;

  // Whether the next call of `samples` samples should run in two stages.
  bool use_two_stages(std::size_t samples) const;
  // The time a call took.
  void record(bool two_stages, std::size_t samples, double seconds);

 private:
  bool preferred() const;

  bool measured_[2] = {false, false};  // [one thread, two stages]
  double seconds_per_sample_[2] = {0.0, 0.0};
  int timed_since_probe_ = 0;
};

}  // namespace tts::vocoder
