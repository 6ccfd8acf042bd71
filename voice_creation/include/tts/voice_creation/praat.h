// Praat as an independent judge of a voice: harmonicity (HNR) and pitch of sound files, by the
// same script tools/quality-report runs (tools/quality/praat_voice.praat, built into the command).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tts/voice_creation/pitch_range.h"

namespace tts::creation {

struct PraatMeasure {
  long hnr_voiced = 0;     // harmonicity frames with periodicity
  double hnr_sum = 0.0;    // the sum of their dB values
  std::vector<double> f0;  // Hz of each voiced pitch frame
};

// Figures pooled over utterances the way the quality report pools them: HNR over all voiced
// frames, the F0 spread as the standard deviation of every voiced pitch frame in semitones, and
// the median; the pitch figures count only the frames within `range` (pitch_range.h).
struct PraatPool {
  std::optional<double> hnr_db, f0_sd_semitones, f0_median_hz;
};
PraatPool pool_measures(const std::vector<PraatMeasure>& measures, const PitchRange& range = {});

// Every voiced pitch frame of `measures`, in Hz.
std::vector<double> voiced_frames(const std::vector<PraatMeasure>& measures);

// Whether `praat` can be run (on PATH).
bool praat_available();

// Measures every file with one Praat process; `work` receives the list and script files. Throws
// std::runtime_error with Praat's message when it fails; a file too short for a pitch analysis is
// left out of the result.
std::map<std::filesystem::path, PraatMeasure> run_praat(
    const std::vector<std::filesystem::path>& files, const std::filesystem::path& work);

}  // namespace tts::creation
