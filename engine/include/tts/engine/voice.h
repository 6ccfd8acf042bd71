// A voice on disk and in memory. A voice is a folder (docs/voice-format.md is the full
// specification):
//
//   voice.json                  format, format_version, name, language, languages,
//                               espeak_voices, speaker, sex, sample_rate, features (MelConfig),
//                               phonemes (symbol table), licence, source, files
//                               (byte size and CRC-32 of every weight/config file below)
//   acoustic/acoustic.json      acoustic model hyper-parameters  (acoustic/)
//   acoustic/acoustic.safetensors
//   vocoder/vocoder.json        WaveNet hyper-parameters          (vocoder/model_files.h)
//   vocoder/vocoder.safetensors
//
// Loading checks everything before anything is used: the format version, that every listed file
// exists with the recorded size and checksum, every tensor's name, dtype and shape (through the
// model loaders), and that the features of voice.json, the acoustic model and the vocoder agree.
// Any problem throws VoiceError naming the file and the problem; nothing falls back to another
// voice.
//
// A loaded Voice is immutable: share one (through std::shared_ptr<const Voice>) between any number
// of threads, each running its own SynthesisStream (pipeline.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tts/acoustic/acoustic_model.h"
#include "tts/frontend/language.h"
#include "tts/frontend/symbol_table.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/kernels/compact_matrix.h"
#include "tts/kernels/file_record.h"
#include "tts/kernels/mel.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/sampler_source.h"

namespace tts::engine {

// Version 2: the acoustic model may predict pitch and energy (acoustic format_version 3). Version
// 1 voices (acoustic format_version 2, no pitch) are still read; they cannot shift their pitch.
inline constexpr int kVoiceFormatVersion = 2;
inline constexpr int kVoiceFormatVersionWithoutPitch = 1;
inline constexpr const char* kVoiceFormat = "tts-voice";

// A voice that is missing, malformed, truncated, corrupted or inconsistent; or a name that is not
// on the search path. The message names the file (or voice) and the problem.
class VoiceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No voice of that name on the search path (resolve_voice).
class VoiceNotFoundError : public VoiceError {
 public:
  using VoiceError::VoiceError;
};

// One file of a voice, as recorded in voice.json's "files": its path relative to the voice folder
// ('/'-separated), size and CRC-32.
using VoiceFile = kernels::FileRecord;

// How a voice realises a pitch shift (SynthesisOptions::pitch_semitones, SSML <prosody pitch>),
// voice.json's optional "pitch_shift":
// - kModel ("model", the default): the acoustic model's predicted F0 moves and its decoder renders
//   the raised contour; a decoder renders only the pitches it was trained on, so a voice trained on
//   one speaker's range follows a shift only in part (docs/acoustic-model.md).
// - kAudio ("audio"): the model speaks at its own pitch and the vocoder's audio is shifted by
//   exactly the request, formants kept (kernels::shift_pitch, TD-PSOLA); also for voices without
//   a pitch predictor.
enum class PitchShiftMethod { kModel, kAudio };
const char* pitch_shift_method_name(PitchShiftMethod method);
// Throws std::invalid_argument naming the accepted values.
PitchShiftMethod parse_pitch_shift_method(const std::string& name);

// What voice.json says about a voice, without its weights.
struct VoiceInfo {
  std::filesystem::path folder;
  std::string name;
  std::string language;  // espeak-ng voice name, e.g. "en-us"
  // The languages it speaks, as BCP 47 tags ("en-US"): voice.json's "languages", or for a voice
  // without one the BCP 47 form of `language`. Never empty.
  std::vector<std::string> languages;
  // The espeak-ng voice that phonemises each of `languages` (the same order): voice.json's
  // "espeak_voices" where it names one, else `language`.
  std::vector<std::string> espeak_voices;
  int sample_rate = 0;
  std::string speaker;  // who speaks (optional; "" when voice.json does not say)
  std::string sex;      // "female", "male", or "" when voice.json does not say
  std::string licence;  // SPDX identifier or a short text
  std::string source;   // where the recordings came from
  std::string description;
  PitchShiftMethod pitch_shift = PitchShiftMethod::kModel;
  // The sub-folders of the models, voice.json's "acoustic" and "vocoder": plain names of
  // sub-folders of `folder` (one may be a link to a shared folder).
  std::string acoustic_folder = "acoustic";
  std::string vocoder_folder = "vocoder";
  std::vector<VoiceFile> files;
  std::uint64_t total_bytes() const;
  // "en-US,es-MX": the languages joined by commas.
  std::string languages_text() const;
  // Each language with its espeak-ng voice, the default first: what the voice's TextPipeline
  // speaks.
  std::vector<frontend::SpokenLanguage> spoken_languages() const;
};

// Reads and checks voice.json only (format, version, fields; not the weight files). Cheap: used by
// `tts voices`. Throws VoiceError.
VoiceInfo read_voice_info(const std::filesystem::path& folder);

class Voice {
 public:
  // Loads and checks the whole voice; its CPU samplers multiply by the vocoder's matrices in
  // `sampling_weights` (fp32 as trained, or compacted to fp16 or int8: vocoder/
  // compact_sampling_weights.h; by default what kernels::default_weight_precision() measured
  // fastest for the CPU). Throws VoiceError naming the file and the problem.
  static std::shared_ptr<const Voice> load(
      const std::filesystem::path& folder,
      kernels::WeightPrecision sampling_weights = kernels::default_weight_precision());

  const VoiceInfo& info() const { return info_; }
  int sample_rate() const { return info_.sample_rate; }
  const kernels::MelConfig& features() const { return features_; }
  const frontend::SymbolTable& symbols() const { return *symbols_; }
  const frontend::TextPipeline& text() const { return *text_; }
  const acoustic::AcousticModel& acoustic() const { return *acoustic_; }
  const vocoder::VocoderModel& vocoder() const { return vocoder_; }
  // Whether SynthesisOptions::pitch_semitones can move this voice's pitch: its audio is shifted,
  // or its acoustic model predicts pitch.
  bool can_shift_pitch() const;

  // Where this voice's samplers come from on each device: every stream of the voice makes its
  // sampler here, so what a device's samplers share (the GPU upload) is made once per voice.
  const vocoder::SamplerSource& samplers() const { return *samplers_; }

 private:
  Voice() = default;
  VoiceInfo info_;
  kernels::MelConfig features_;
  std::unique_ptr<frontend::SymbolTable> symbols_;  // stable address: text_ refers to it
  std::unique_ptr<frontend::TextPipeline> text_;
  std::unique_ptr<acoustic::AcousticModel> acoustic_;
  vocoder::VocoderModel vocoder_;
  std::unique_ptr<vocoder::SamplerSource> samplers_;  // of vocoder_'s weights
};

// `name_or_path` is a folder (it contains '/' or names an existing directory) or a voice name
// looked up on the search path (voice_search.h). Throws VoiceNotFoundError when nothing is found,
// naming the folders searched.
std::filesystem::path resolve_voice(const std::string& name_or_path);

// What write_voice_manifest records besides the files.
struct VoiceManifest {
  std::string name;
  std::string language = "en-us";
  // BCP 47 tags; empty: the BCP 47 form of `language` alone.
  std::vector<std::string> languages;
  // The espeak-ng voice of some of `languages` (tag → voice), written as "espeak_voices" when not
  // empty; a tag without one is phonemised with `language`.
  std::map<std::string, std::string> espeak_voices;
  std::string speaker;  // written when not empty
  std::string sex;      // "female" or "male"; written when not empty
  std::string licence;
  std::string source;
  std::string description;
  PitchShiftMethod pitch_shift = PitchShiftMethod::kModel;
};

// Writes FOLDER/voice.json (atomically) for a folder whose acoustic/ and vocoder/ sub-folders are
// already saved (frontend save_acoustic_model, vocoder::save_vocoder): records the size and CRC-32
// of every file in them, the vocoder's features and sample rate, and `symbols`.
void write_voice_manifest(const std::filesystem::path& folder, const VoiceManifest& manifest,
                          const frontend::SymbolTable& symbols);

}  // namespace tts::engine
