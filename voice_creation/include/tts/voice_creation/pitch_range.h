// The pitch range one speaker's recordings span, within which the F0 spreads that judge a voice
// are measured. A pitch tracker on rough audio finds, now and then, a frame at two or three times
// the F0; those frames are the tracker's, not the speaker's, and a standard deviation is led by
// them: on flite kal16's held-out prompts Praat put 1% of his recordings' frames above 1.6 times
// his median and 9% of his copy-synthesis's, which made the copy's spread 6.67 semitones against
// his 3.13, where within his range the two are 1.42 and 1.34 (docs/voice-creation.md).
#pragma once

#include <limits>
#include <vector>

namespace tts::creation {

struct PitchRange {
  double floor_hz = 0.0;
  double ceiling_hz = std::numeric_limits<double>::infinity();
  bool contains(double hz) const { return hz >= floor_hz && hz <= ceiling_hz; }
  bool bounded() const {
    return floor_hz > 0.0 || ceiling_hz < std::numeric_limits<double>::infinity();
  }
};

// The standard deviation, in semitones re 100 Hz, of the voiced frames added within a range (0 Hz
// and frames outside it count for nothing): what every F0 spread of a voice and its recordings
// is.
class SemitoneSpread {
 public:
  explicit SemitoneSpread(const PitchRange& range = {}) : range_(range) {}
  // Whether the frame counted.
  bool add(double hz);
  // 0 below two frames.
  double sd() const;
  double frames() const { return n_; }

 private:
  PitchRange range_;
  double n_ = 0.0, sum_ = 0.0, squares_ = 0.0;
};

// De Looze and Hirst's range for a speaker from a first pass over their recordings: 0.75 times
// the first quartile of the voiced frames to 1.5 times the third. `voiced_hz` holds every voiced
// frame (Hz; zeros, unvoiced frames, are ignored); with fewer than 8 of them the range is
// unbounded.
PitchRange speaker_pitch_range(std::vector<double> voiced_hz);

}  // namespace tts::creation
