// Moves the pitch of mono speech by a number of semitones and keeps its formants and its timing:
// Rubber Band's R3 engine in real-time mode, with formant preservation. A voice whose acoustic
// model renders only the pitches its speaker spoke realises `tts say --pitch` here, on the
// vocoder's audio (docs/acoustic-model.md, session 22).
//
// Streaming: audio goes in as it is made and comes out, shifted, as soon as it is ready; the
// output is aligned with the input (the engine's start delay is removed) and, once `last` has been
// given, exactly as long. How the input is split into calls does not change the output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace RubberBand {
class RubberBandStretcher;
}

namespace tts::audio {

class PitchShifter {
 public:
  // Throws std::invalid_argument for a sample rate that is not positive or a shift that is not
  // finite or beyond ±24 semitones.
  PitchShifter(int sample_rate, float semitones);
  ~PitchShifter();
  PitchShifter(const PitchShifter&) = delete;
  PitchShifter& operator=(const PitchShifter&) = delete;

  // Feeds `count` samples and appends to `out` the shifted samples that are ready. With `last`
  // the input is complete: `out` then receives the rest, so that as many samples have come out as
  // went in. Throws std::logic_error when called again after `last`.
  void process(const float* samples, std::size_t count, bool last, std::vector<float>& out);

  // Samples the shifter holds back before its first output (its latency at this rate).
  std::size_t latency() const { return start_delay_; }

 private:
  void feed(const float* samples, std::size_t count, bool final);
  void drain(std::vector<float>& out);

  std::unique_ptr<RubberBand::RubberBandStretcher> stretcher_;
  std::size_t start_delay_ = 0;
  std::vector<float> pending_;    // input not yet given to the engine (less than a block)
  std::uint64_t fed_ = 0;         // input samples taken (the caller's, not the padding)
  std::uint64_t skipped_ = 0;     // output samples dropped so far as start delay
  std::uint64_t emitted_ = 0;     // output samples handed back
  std::vector<float> retrieved_;  // scratch
  bool finished_ = false;
};

}  // namespace tts::audio
