// Pitch shift of speech that keeps its formants and its timing: time-domain pitch-synchronous
// overlap-add (TD-PSOLA, Moulines & Charpentier 1990), on the F0 that StreamingPitchTracker
// measures (track_pitch's, decided within a bounded lookahead so that the shift can stream).
//
// Each voiced period of the input is cut out around a pitch mark (a window two periods long) and
// the grains are added back at marks spaced by the period divided by the pitch ratio: the
// harmonics move, the spectral envelope of each grain (the formants) stays, and the output is as
// long as the input. Unvoiced stretches are cut and added back unchanged.
//
// Why by hand: on our voice's development sentences (seed 0) a +4 semitone shift by Rubber Band
// (R3, formants preserved, the one maintained library that keeps formants) raised the
// recogniser's word error rate from 31.8% to 45.2% in real-time mode and 39.7% offline; PSOLA,
// Praat's or this one, to about 38-39% over three seeds against 33.9% unshifted
// (docs/acoustic-model.md).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tts/kernels/mel.h"
#include "tts/kernels/pitch.h"
#include "tts/kernels/pitch_stream.h"

namespace tts::kernels {

// The shift as the audio arrives, for a pipeline that hands audio over while the sentence is still
// being vocoded: push() the sentence's samples as they are made, finish() at its end; each call
// returns the next samples of the shifted sentence that are final (possibly none), and all of them
// together are as many samples as were pushed.
//
// F0 and voicing come from a StreamingPitchTracker (pitch_stream.h), whose frames are final 16
// frames (200 ms at 12.5 ms frames) plus a third of a window after their centre; the pitch marks,
// the grains and the loudness match need a few periods and two frames more. So the output trails
// the input by at most lookahead_samples() (0.35 s at 16 kHz; 0.3 s measured): with the vocoder
// at 0.3-0.4 times real time on one thread, a shifted sentence starts about 0.1 s after the
// vocoder does instead of after the whole sentence. Nothing looks further: a sentence's silence
// threshold and octave context are those of its audio so far and of that lookahead, not of the
// whole sentence as track_pitch's, which changes the voicing of 0.2% of the frames (pitch_stream.h)
// and leaves the measured shift and the recogniser's word error rate at +4 semitones as they were
// (docs/pitch.md).
//
// The output is a function of the samples alone: how they are split into push() calls changes
// nothing. Not thread-safe; one per sentence.
class StreamingPitchShifter {
 public:
  // Throws std::invalid_argument for a shift that is not finite or beyond ±24 semitones, or on a
  // bad pitch config (naming the field).
  StreamingPitchShifter(const MelConfig& features, float semitones, const PitchConfig& pitch = {},
                        const PitchLookahead& lookahead = {});
  ~StreamingPitchShifter();
  StreamingPitchShifter(const StreamingPitchShifter&) = delete;
  StreamingPitchShifter& operator=(const StreamingPitchShifter&) = delete;

  // Appends n samples; returns the shifted samples that became final. Throws std::logic_error
  // after finish().
  std::vector<float> push(const float* samples, std::size_t n);
  // The sentence has ended: the rest of the shifted samples.
  std::vector<float> finish();

  // The most samples the output can trail the input by before finish() (0 with no shift).
  std::size_t lookahead_samples() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// `samples` (mono, at features.sample_rate) with its F0 multiplied by 2^(semitones / 12): the same
// number of samples, StreamingPitchShifter's output for them pushed at once. Throws
// std::invalid_argument as its constructor.
std::vector<float> shift_pitch(const float* samples, std::size_t n, const MelConfig& features,
                               float semitones, const PitchConfig& pitch = {});

}  // namespace tts::kernels
