// Fundamental frequency (F0) and voicing per log-mel frame, for FastSpeech 2 / FastPitch-style
// pitch predictors: aubio's YIN-family detectors on a window centred on each frame, then voicing,
// octave and median post-processing tuned against Praat on real recordings (docs/pitch.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tts/kernels/mel.h"

namespace tts::kernels {

struct PitchConfig {
  float fmin = 60.0f;   // Hz, lowest F0 reported
  float fmax = 600.0f;  // Hz, highest
  // The defaults below were chosen by grid search against Praat (ac, 12.5 ms, same 60-600 Hz
  // range) on 22 real recordings of at least two men and a woman (pocketsphinx-testdata,
  // alsa-utils; tests/pitch_tracker_test.cpp, docs/pitch.md): voicing agreed on 96.6% of 4565
  // frames, F0 within 50 cents on 97.0% of the frames both called voiced.
  //
  // aubio method: "yinfast" (YIN with its difference function by FFT: the same figures as
  // "yin", 5x faster) or "yin", or "yinfft" (spectral YIN). aubio 0.4.9's yinfft reports no
  // confidence (see pitch.cpp), so only its tolerance can decide voicing; tuned that way it
  // reached 93.0% voicing / 95.3% F0 against Praat, below yin's 96.6% / 97.0%.
  std::string method = "yinfast";
  // Analysis window in seconds, centred on the frame (rounded to an even number of samples).
  // YIN compares lags up to half the window, so it must hold two periods of fmin (33 ms at
  // 60 Hz). 48 ms measured best (40 ms: 96.6% / 96.3%, 64 ms: 96.0% / 96.8%).
  float window_s = 0.048f;
  // aubio's tolerance: yin/yinfast take the first dip of the normalised difference below it
  // (else its global minimum); yinfft gives up when nothing dips below it. 0.15 is aubio's
  // default for yin, and 0.10-0.20 measured within 0.3 points; use about 0.6 with yinfft.
  float tolerance = 0.15f;
  // Voiced only where aubio's confidence (1 - normalised difference at the chosen lag) reaches
  // this. 0.5 measured best: 0.65 voiced too little (94.3% voicing agreement), 0.3-0.4 too much
  // (95.3-95.8%).
  float min_confidence = 0.5f;
  // Unvoiced where the window's mean power is below this absolute level (dB re full scale), or
  // this far below the loudest window of the recording (relative, so independent of gain, as
  // Praat's silence threshold is relative to the sound's peak). -25 dB measured best (-40 dB:
  // 95.4%, -30 dB: 96.1%, -20 dB: 95.5% voicing agreement); -70 dB only catches near-silence.
  float silence_db = -70.0f;
  float relative_silence_db = -25.0f;
  // Voiced F0 this far (in octaves) or further from the median of the voiced frames within
  // octave_context_frames either side is moved by whole octaves toward it (YIN's halving and
  // doubling errors); 0 turns it off. It removed 9 of 15 gross (> 6 semitone) errors.
  float octave_jump = 0.75f;
  int octave_context_frames = 40;  // 0.5 s either side at 12.5 ms frames
  // Median filter over F0 inside each voiced run (odd; 1 = none). A 3-frame median lowered the
  // agreement within 20 cents from 90.2% to 85.5% (and within 50 cents to 95.8%), so it is off.
  int median_frames = 1;
  // Unvoiced gaps up to fill_gap_frames frames between two voiced runs are filled (F0
  // interpolated in log frequency), then voiced runs shorter than min_voiced_frames are made
  // unvoiced. Filling gaps of up to 2 frames raised voicing agreement from 95.4% to 96.6%
  // (Praat's path search rarely breaks voicing for a frame or two) at a cost of 0.8 points of
  // F0 agreement; the minimum run length mattered little (3 frames: +0.1 point).
  int min_voiced_frames = 3;
  int fill_gap_frames = 2;

  // Throws std::invalid_argument naming the offending field ("PitchConfig.fmin = ...: ...");
  // needs the features for the sample rate (window and fmax limits).
  void validate(const MelConfig& features) const;
};

// F0 per log-mel frame: f0_hz[f] > 0 where frame f is voiced, 0 where unvoiced.
// Exactly features.frame_count(n) frames, frame f centred on sample f * hop_length (as
// MelExtractor::compute; with center = false, on f * hop_length + n_fft / 2 as MagnitudeStft's).
// Thread-safe (no shared mutable state: each call makes its own aubio detector, creating and
// destroying its FFTW plans under fftw_planner_mutex()). Throws std::invalid_argument on a bad
// config (naming the field).
std::vector<float> track_pitch(const float* samples, std::size_t n, const MelConfig& features,
                               const PitchConfig& config = {});

}  // namespace tts::kernels
