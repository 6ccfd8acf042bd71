#include "tts/audio/pitch_shifter.h"

#include <rubberband/RubberBandStretcher.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tts::audio {

namespace {

// The engine's options: real time (streaming, no study pass), the R3 engine ("finer": its
// formant preservation keeps the speaker's timbre at a shift of several semitones; R2 measured
// 2.4 dB lower HNR on our voice), formants preserved, and no threads of its own (a synthesis
// stream already runs its vocoder on a thread of its own).
constexpr RubberBand::RubberBandStretcher::Options kOptions =
    RubberBand::RubberBandStretcher::OptionProcessRealTime |
    RubberBand::RubberBandStretcher::OptionEngineFiner |
    RubberBand::RubberBandStretcher::OptionFormantPreserved |
    RubberBand::RubberBandStretcher::OptionThreadingNever;

constexpr std::size_t kBlock = 512;

}  // namespace

PitchShifter::PitchShifter(int sample_rate, float semitones) {
  if (sample_rate <= 0)
    throw std::invalid_argument("pitch shifter: sample rate must be positive, not " +
                                std::to_string(sample_rate));
  if (!std::isfinite(semitones) || std::fabs(semitones) > 24.0f)
    throw std::invalid_argument("pitch shifter: the shift must be within ±24 semitones, not " +
                                std::to_string(semitones));
  stretcher_ = std::make_unique<RubberBand::RubberBandStretcher>(
      static_cast<std::size_t>(sample_rate), 1, kOptions, 1.0,
      std::pow(2.0, static_cast<double>(semitones) / 12.0));
  stretcher_->setMaxProcessSize(kBlock);
  // Rubber Band asks for this much silence before the signal in real-time mode, and then delays
  // its output by start_delay_: padding and dropping them aligns the output with the input.
  const std::vector<float> pad(stretcher_->getPreferredStartPad(), 0.0f);
  start_delay_ = stretcher_->getStartDelay();
  feed(pad.data(), pad.size(), false);
}

PitchShifter::~PitchShifter() = default;

void PitchShifter::feed(const float* samples, std::size_t count, bool final) {
  // The engine always gets whole blocks of kBlock samples (the last one padded with silence): in
  // real-time mode its output depends on how its input is split, and the caller's split (the
  // vocoder's chunks) must not change the audio.
  pending_.insert(pending_.end(), samples, samples + count);
  if (final) pending_.resize((pending_.size() + kBlock - 1) / kBlock * kBlock + kBlock, 0.0f);
  std::size_t done = 0;
  for (; pending_.size() - done >= kBlock; done += kBlock) {
    const float* p = pending_.data() + done;
    stretcher_->process(&p, kBlock, final && done + kBlock == pending_.size());
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
}

void PitchShifter::drain(std::vector<float>& out) {
  for (int ready; (ready = stretcher_->available()) > 0;) {
    retrieved_.resize(static_cast<std::size_t>(ready));
    float* p = retrieved_.data();
    const std::size_t got = stretcher_->retrieve(&p, retrieved_.size());
    std::size_t from = 0;
    if (skipped_ < start_delay_) {
      from = static_cast<std::size_t>(std::min<std::uint64_t>(start_delay_ - skipped_, got));
      skipped_ += from;
    }
    // Never more than went in: the tail after the signal is the padding's.
    const auto keep = static_cast<std::size_t>(
        std::min<std::uint64_t>(got - from, fed_ > emitted_ ? fed_ - emitted_ : 0));
    out.insert(out.end(), retrieved_.begin() + static_cast<std::ptrdiff_t>(from),
               retrieved_.begin() + static_cast<std::ptrdiff_t>(from + keep));
    emitted_ += keep;
  }
}

void PitchShifter::process(const float* samples, std::size_t count, bool last,
                           std::vector<float>& out) {
  if (finished_) throw std::logic_error("pitch shifter: process() after the last input");
  fed_ += count;
  feed(samples, count, false);
  drain(out);
  if (!last) return;
  finished_ = true;
  // Silence after the signal pushes its end through the engine's delay.
  const std::vector<float> tail(start_delay_, 0.0f);
  feed(tail.data(), tail.size(), true);
  drain(out);
  if (emitted_ < fed_) {  // not expected; keeps the promised length whatever the engine does
    out.insert(out.end(), static_cast<std::size_t>(fed_ - emitted_), 0.0f);
    emitted_ = fed_;
  }
}

}  // namespace tts::audio
