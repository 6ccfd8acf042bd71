// The verdict on a new voice: its held-out prompts, as recorded, copy-synthesised through its
// vocoder and spoken by it from their text, judged against the targets a voice of this project
// must meet (docs/voice-creation.md):
//   - Praat's HNR of the voice ≥ that of copy-synthesis − 1.5 dB (the vocoder's own ceiling);
//   - Praat's F0 spread (semitones) within 0.6 of the recordings';
//   - the acoustic model's aligned log-mel distance to the recordings ≤ 1.25 × the reference
//     (the bundled voice's own on its held-out prompts);
//   - the real-time factor on one thread below 1;
//   - for an English voice, the word error rate of an independent recogniser (pocketsphinx) on the
//     voice speaking the prompts at most 3 points above the bundled `default` voice's on the same
//     prompts in the same run.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tts::creation {

struct Target {
  std::string name, figures;
  std::optional<bool> passed;  // nothing: not measured (the reason is in `figures`)
};

struct VoiceReport {
  int prompts = 0;                                            // held-out prompts judged
  double seconds = 0.0;                                       // of their recordings
  std::optional<double> hnr_recordings, hnr_copy, hnr_voice;  // dB
  std::optional<double> f0_sd_recordings, f0_sd_voice;        // semitones
  // The recordings' pitch range (pitch_range.h), within which both spreads are measured (Hz).
  std::optional<double> f0_floor_hz, f0_ceiling_hz;
  double mel_distance = 0.0;  // log-mel units
  std::optional<double> reference_mel_distance;
  double real_time_factor = 0.0;  // synthesis seconds per second of audio, one thread
  std::string praat;              // Praat's version, or why it did not run
  bool praat_ran = false;
  // The words, for an English voice (no recogniser here knows another language).
  bool words_judged = false;  // an English voice: the target applies
  std::string recogniser;     // its version, or why it did not run
  int reference_words = 0;    // in the prompts' texts
  std::optional<double> wer_recordings, wer_voice, wer_reference_voice;  // errors per word
  // The recordings' own frames through the voice's vocoder: between the recordings' rate and the
  // voice's, it says how much of the voice's errors the vocoder makes and how much the acoustic
  // model.
  std::optional<double> wer_copy;
  std::vector<Target> targets;
  // PASS when every measured target passed and none is left unmeasured.
  bool passed() const;
};
void to_json(nlohmann::json& j, const VoiceReport& r);
void from_json(const nlohmann::json& j, VoiceReport& r);

struct ReportInputs {
  std::filesystem::path voice_dir;     // the packed voice
  std::filesystem::path held_out_dir;  // LJSpeech folder of the held-out prompts
  std::filesystem::path work_dir;      // receives the audio made (copy/, voice/) and Praat's files
  std::string espeak_voice;
  std::optional<double> reference_mel_distance;
  // For an English voice: the voice whose word error rate the new one's is judged against (the
  // bundled `default`); nothing when it is not installed (the target is then not measured).
  bool judge_words = false;
  std::optional<std::filesystem::path> reference_voice;
  uint64_t seed = 1;
  int threads = 2;
};

// Synthesises, measures and judges. `note` receives a line per finished measurement. Throws
// std::runtime_error when the voice or the prompts cannot be read.
VoiceReport judge_voice(const ReportInputs& inputs,
                        const std::function<void(const std::string&)>& note);

}  // namespace tts::creation
