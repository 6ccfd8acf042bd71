#include "tts/engine/voice.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "tts/engine/voice_search.h"
#include "tts/frontend/language.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/file_record.h"
#include "tts/kernels/regular_file.h"
#include "voice_folder.h"

namespace fs = std::filesystem;

namespace tts::engine {

namespace {

// Files every voice must list (and therefore have) in voice.json's "files", in the sub-folders
// that "acoustic" and "vocoder" name.
std::array<std::string, 4> required_files(const VoiceInfo& info) {
  return {info.acoustic_folder + "/acoustic.json", info.acoustic_folder + "/acoustic.safetensors",
          info.vocoder_folder + "/vocoder.json", info.vocoder_folder + "/vocoder.safetensors"};
}

template <typename T>
T required(const nlohmann::json& j, const char* key, const char* what) {
  if (!j.contains(key)) throw std::invalid_argument(std::string("missing \"") + key + "\"");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("\"") + key + "\" must be " + what);
  }
}

// An integer that fits an int: 16000.5 is a mistake, not 16000.
int required_int(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) throw std::invalid_argument(std::string("missing \"") + key + "\"");
  const nlohmann::json& value = j.at(key);
  const bool fits = value.is_number_unsigned()
                        ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX)
                        : value.is_number_integer() && value.get<std::int64_t>() >= INT_MIN &&
                              value.get<std::int64_t>() <= INT_MAX;
  if (!fits)
    throw std::invalid_argument(std::string("\"") + key + "\" must be an integer, not " +
                                value.dump());
  return value.get<int>();
}

// A relative path that stays inside the voice folder.
bool is_safe_relative(const std::string& p) {
  if (p.empty() || p.front() == '/') return false;
  for (const auto& part : fs::path(p))
    if (part == "..") return false;
  return true;
}

nlohmann::json read_json_file(const fs::path& path, std::uint64_t max_bytes = UINT64_MAX) {
  std::string text;
  try {
    text = kernels::read_regular_file(path, max_bytes);
  } catch (const kernels::RegularFileError& e) {
    if (e.missing()) throw VoiceError(path.string() + ": missing (is this a voice folder?)");
    throw VoiceError(e.what());
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw VoiceError(path.string() + ": not valid JSON (truncated or corrupted?): " + e.what());
  }
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The espeak-ng voice of each of `languages`: the one `chosen` names for it, else `language`.
// Throws std::invalid_argument naming the field: a tag that is not one of `languages`, an empty
// voice, or a first language whose voice is not `language` (which names the default's voice).
std::vector<std::string> espeak_voices_of(const std::vector<std::string>& languages,
                                          const std::string& language,
                                          const std::map<std::string, std::string>& chosen) {
  for (const auto& [tag, voice] : chosen) {
    if (std::find(languages.begin(), languages.end(), tag) == languages.end())
      throw std::invalid_argument("\"espeak_voices\" names \"" + tag +
                                  "\", which is not one of \"languages\" (" + joined(languages) +
                                  ")");
    if (voice.empty())
      throw std::invalid_argument("\"espeak_voices\" gives \"" + tag +
                                  "\" an empty espeak-ng voice");
  }
  std::vector<std::string> out;
  for (const auto& tag : languages) {
    const auto it = chosen.find(tag);
    out.push_back(it == chosen.end() ? language : it->second);
  }
  if (!out.empty() && !frontend::same_language_tag(out.front(), language))
    throw std::invalid_argument("\"espeak_voices\" gives \"" + languages.front() +
                                "\" (the first of \"languages\", the default) the espeak-ng "
                                "voice \"" +
                                out.front() + "\" but \"language\" is \"" + language +
                                "\": they must agree");
  return out;
}

void check_sex(const std::string& sex) {
  if (sex != "female" && sex != "male")
    throw std::invalid_argument("\"sex\" is \"" + sex + "\", not \"female\" or \"male\"");
}

}  // namespace

const char* pitch_shift_method_name(PitchShiftMethod method) {
  return method == PitchShiftMethod::kAudio ? "audio" : "model";
}

PitchShiftMethod parse_pitch_shift_method(const std::string& name) {
  if (name == "model") return PitchShiftMethod::kModel;
  if (name == "audio") return PitchShiftMethod::kAudio;
  throw std::invalid_argument("\"" + name +
                              "\" is not a way to shift pitch (\"model\" or \"audio\")");
}

std::uint64_t VoiceInfo::total_bytes() const {
  std::uint64_t total = 0;
  for (const auto& f : files) total += f.bytes;
  return total;
}

std::string VoiceInfo::languages_text() const {
  std::string out;
  for (const auto& tag : languages) out += (out.empty() ? "" : ",") + tag;
  return out;
}

std::vector<frontend::SpokenLanguage> VoiceInfo::spoken_languages() const {
  std::vector<frontend::SpokenLanguage> out;
  for (std::size_t i = 0; i < languages.size(); ++i)
    out.push_back({languages[i], i < espeak_voices.size() ? espeak_voices[i] : language});
  return out;
}

VoiceInfo read_voice_info(const fs::path& folder) {
  const fs::path json_path = folder / "voice.json";
  const nlohmann::json j = read_json_file(json_path, kMaxVoiceJsonBytes);
  VoiceInfo info;
  info.folder = folder;
  try {
    if (!j.is_object()) throw std::invalid_argument("not a JSON object");
    if (j.value("format", std::string()) != kVoiceFormat)
      throw std::invalid_argument(std::string("\"format\" is not \"") + kVoiceFormat + "\"");
    const int version = required_int(j, "format_version");
    if (version != kVoiceFormatVersion && version != kVoiceFormatVersionWithoutPitch)
      throw std::invalid_argument(
          "format_version " + std::to_string(version) + " is not supported (this build reads " +
          std::to_string(kVoiceFormatVersionWithoutPitch) + " and " +
          std::to_string(kVoiceFormatVersion) +
          (version > kVoiceFormatVersion ? "; a newer tts made this voice: upgrade tts)" : ")"));
    info.name = required<std::string>(j, "name", "a string");
    info.language = required<std::string>(j, "language", "a string");
    if (j.contains("languages")) {
      const auto& tags = j["languages"];
      if (!tags.is_array() || tags.empty())
        throw std::invalid_argument("\"languages\" must be a non-empty array of BCP 47 tags");
      for (const auto& tag : tags) {
        if (!tag.is_string() || !frontend::looks_like_bcp47(tag.get<std::string>()))
          throw std::invalid_argument("\"languages\" holds " + tag.dump() +
                                      ", not a BCP 47 tag such as \"en-US\"");
        info.languages.push_back(tag.get<std::string>());
      }
    } else {
      info.languages.push_back(frontend::bcp47_casing(info.language));
    }
    std::map<std::string, std::string> chosen;
    if (j.contains("espeak_voices")) {
      const auto& voices = j["espeak_voices"];
      const char* shape =
          "\"espeak_voices\" must be an object from BCP 47 tag to espeak-ng voice, such as "
          "{\"en-US\": \"en-us\", \"es-MX\": \"es-419\"}";
      if (!voices.is_object()) throw std::invalid_argument(shape);
      for (const auto& [tag, voice] : voices.items()) {
        if (!voice.is_string()) throw std::invalid_argument(shape);
        chosen[tag] = voice.get<std::string>();
      }
    }
    info.espeak_voices = espeak_voices_of(info.languages, info.language, chosen);
    if (j.contains("speaker")) info.speaker = required<std::string>(j, "speaker", "a string");
    if (j.contains("sex")) {
      info.sex = required<std::string>(j, "sex", "a string");
      check_sex(info.sex);
    }
    info.sample_rate = required_int(j, "sample_rate");
    info.licence = required<std::string>(j, "licence", "a string");
    info.source = required<std::string>(j, "source", "a string");
    info.description = j.value("description", std::string());
    if (j.contains("pitch_shift")) {
      const auto method = required<std::string>(j, "pitch_shift", "a string");
      try {
        info.pitch_shift = parse_pitch_shift_method(method);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("\"pitch_shift\": ") + e.what());
      }
    }
    if (info.name.empty()) throw std::invalid_argument("\"name\" is empty");
    if (info.sample_rate <= 0) throw std::invalid_argument("\"sample_rate\" must be positive");
    info.acoustic_folder = model_folder_name(j, "acoustic", "acoustic");
    info.vocoder_folder = model_folder_name(j, "vocoder", "vocoder");
    const auto files = required<nlohmann::json>(j, "files", "an array");
    if (!files.is_array()) throw std::invalid_argument("\"files\" must be an array");
    std::set<std::string> seen;
    for (const auto& entry : files) {
      const VoiceFile f = kernels::parse_file_record(entry);
      if (!is_safe_relative(f.path))
        throw std::invalid_argument("file path \"" + f.path + "\" leaves the voice folder");
      if (!seen.insert(f.path).second)
        throw std::invalid_argument("file \"" + f.path + "\" is listed twice");
      info.files.push_back(f);
    }
    for (const std::string& name : required_files(info))
      if (!seen.count(name)) throw std::invalid_argument("\"files\" does not list " + name);
  } catch (const std::invalid_argument& e) {
    throw VoiceError(json_path.string() + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong type read with value() ("format": 1, "description": []): found by
    // fuzz/voice_fuzz, it escaped as a JSON exception instead of a VoiceError naming the file.
    throw VoiceError(json_path.string() + ": " + e.what());
  }
  return info;
}

namespace {

// Runs every stage once on a short sentence, so that the process's first stream does not pay the
// first calls (the normaliser's regular expressions, espeak-ng, OpenBLAS's buffers, the first
// touch of the weights) before its first audio. No audio depends on it, and a voice
// whose language cannot say the sentence simply skips it.
void warm_up(const Voice& voice) {
  try {
    voice.text().process("Hello.", [&](frontend::PhonemizedSentence s) {
      if (s.ids.empty()) return;
      kernels::Matrix mel =
          voice.acoustic().synthesize(std::vector<int32_t>(s.ids.begin(), s.ids.end()), {}).mel;
      if (mel.cols() < 2) return;
      const std::unique_ptr<vocoder::Sampler> sampler =
          voice.samplers().make_sampler(kernels::Device::kCpu);
      sampler->start(0, mel, 0);
      std::vector<int32_t> samples(256);
      sampler->generate({samples.size()}, samples.size(), samples.data());
    });
  } catch (const std::exception&) {
  }
}

}  // namespace

bool Voice::can_shift_pitch() const {
  return info_.pitch_shift == PitchShiftMethod::kAudio || acoustic_->predicts_pitch();
}

std::shared_ptr<const Voice> Voice::load(const fs::path& folder,
                                         kernels::WeightPrecision sampling_weights) {
  std::shared_ptr<Voice> voice(new Voice());
  voice->info_ = read_voice_info(folder);
  const VoiceInfo& info = voice->info_;
  for (const auto& f : info.files) check_listed_file(info, f);
  check_weights_listed(info, info.acoustic_folder, "acoustic.json", "acoustic.safetensors");
  check_weights_listed(info, info.vocoder_folder, "vocoder.json", "vocoder.safetensors");
  const fs::path acoustic_folder = folder / info.acoustic_folder;
  const fs::path vocoder_folder = folder / info.vocoder_folder;

  const fs::path json_path = folder / "voice.json";
  const nlohmann::json j = read_json_file(json_path, kMaxVoiceJsonBytes);
  try {
    voice->features_ =
        required<nlohmann::json>(j, "features", "an object").get<kernels::MelConfig>();
    if (voice->features_.sample_rate != voice->info_.sample_rate)
      throw std::invalid_argument("\"sample_rate\" " + std::to_string(voice->info_.sample_rate) +
                                  " differs from the features' " +
                                  std::to_string(voice->features_.sample_rate));
    voice->symbols_ = std::make_unique<frontend::SymbolTable>(
        frontend::SymbolTable::from_json(required<nlohmann::json>(j, "phonemes", "an object")));
    try {
      voice->text_ = std::make_unique<frontend::TextPipeline>(voice->info_.spoken_languages(),
                                                              *voice->symbols_);
    } catch (const frontend::UnknownLanguageError& e) {
      const bool own = frontend::same_language_tag(e.language(), voice->info_.language);
      throw std::invalid_argument(std::string(own ? "\"language\": " : "\"espeak_voices\": ") +
                                  e.what());
    }
  } catch (const std::exception& e) {
    throw VoiceError(json_path.string() + ": " + e.what());
  }

  try {
    voice->vocoder_ = vocoder::load_vocoder(vocoder_folder);
    voice->samplers_ =
        std::make_unique<vocoder::SamplerSource>(*voice->vocoder_.weights, sampling_weights);
  } catch (const std::exception& e) {
    throw VoiceError(e.what());
  }
  try {
    voice->acoustic_ = acoustic::load_acoustic_model(acoustic_folder);
  } catch (const std::exception& e) {
    throw VoiceError(e.what());
  }

  const fs::path acoustic_json = acoustic_folder / "acoustic.json";
  if (read_json_file(acoustic_json).value("symbol_table", nlohmann::json()) != j.at("phonemes"))
    throw VoiceError(acoustic_json.string() +
                     ": its symbol table differs from voice.json's \"phonemes\"");
  const nlohmann::json features = voice->features_;
  if (nlohmann::json(voice->vocoder_.features) != features)
    throw VoiceError((vocoder_folder / "vocoder.json").string() +
                     ": features differ from voice.json's: " +
                     nlohmann::json(voice->vocoder_.features).dump() + " vs " + features.dump());
  if (nlohmann::json(voice->acoustic_->features()) != features)
    throw VoiceError(acoustic_json.string() + ": features differ from voice.json's: " +
                     nlohmann::json(voice->acoustic_->features()).dump() + " vs " +
                     features.dump());
  warm_up(*voice);
  return voice;
}

fs::path resolve_voice(const std::string& name_or_path) {
  if (name_or_path.empty()) throw VoiceError("empty voice name");
  std::error_code ec;
  if (name_or_path.find('/') != std::string::npos || fs::is_directory(name_or_path, ec)) {
    if (!fs::is_directory(name_or_path, ec))
      throw VoiceNotFoundError(name_or_path + ": no such voice folder");
    return fs::path(name_or_path);
  }
  if (auto found = find_voice(name_or_path)) return *found;
  std::string searched;
  for (const auto& folder : voice_search_path())
    searched += (searched.empty() ? "" : ", ") + folder.string();
  throw VoiceNotFoundError("no voice named \"" + name_or_path + "\" (searched " + searched + ")");
}

void write_voice_manifest(const fs::path& folder, const VoiceManifest& manifest,
                          const frontend::SymbolTable& symbols) {
  // The features come from vocoder.json; the weights are not checked here (Voice::load does).
  kernels::MelConfig features;
  const fs::path vocoder_json = folder / "vocoder" / "vocoder.json";
  try {
    features = read_json_file(vocoder_json).at("features").get<kernels::MelConfig>();
  } catch (const VoiceError&) {
    throw;
  } catch (const std::exception& e) {
    throw VoiceError(vocoder_json.string() + ": " + e.what());
  }
  nlohmann::json files = nlohmann::json::array();
  for (const char* sub : {"acoustic", "vocoder"}) {
    std::error_code ec;
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(folder / sub, ec))
      if (entry.is_regular_file()) paths.push_back(entry.path());
    if (ec) throw VoiceError((folder / sub).string() + ": " + ec.message());
    std::sort(paths.begin(), paths.end());
    try {
      for (const auto& p : paths)
        files.push_back(kernels::file_record_json(
            kernels::record_file(folder, std::string(sub) + "/" + p.filename().string())));
    } catch (const kernels::FileRecordError& e) {
      throw VoiceError(e.what());
    }
  }
  for (const auto& tag : manifest.languages)
    if (!frontend::looks_like_bcp47(tag))
      throw VoiceError((folder / "voice.json").string() + ": language \"" + tag +
                       "\" is not a BCP 47 tag such as \"en-US\" or \"es-MX\"");
  const std::vector<std::string> languages =
      manifest.languages.empty()
          ? std::vector<std::string>{frontend::bcp47_casing(manifest.language)}
          : manifest.languages;
  try {
    espeak_voices_of(languages, manifest.language, manifest.espeak_voices);
    if (!manifest.sex.empty()) check_sex(manifest.sex);
  } catch (const std::invalid_argument& e) {
    throw VoiceError((folder / "voice.json").string() + ": " + e.what());
  }
  nlohmann::json j = {{"format", kVoiceFormat},
                      {"format_version", kVoiceFormatVersion},
                      {"name", manifest.name},
                      {"language", manifest.language},
                      {"languages", languages},
                      {"sample_rate", features.sample_rate},
                      {"licence", manifest.licence},
                      {"source", manifest.source},
                      {"description", manifest.description},
                      {"pitch_shift", pitch_shift_method_name(manifest.pitch_shift)},
                      {"features", features},
                      {"phonemes", symbols.to_json()},
                      {"acoustic", "acoustic"},
                      {"vocoder", "vocoder"},
                      {"files", files}};
  if (!manifest.espeak_voices.empty()) j["espeak_voices"] = manifest.espeak_voices;
  if (!manifest.speaker.empty()) j["speaker"] = manifest.speaker;
  if (!manifest.sex.empty()) j["sex"] = manifest.sex;
  kernels::write_file_atomically(folder / "voice.json", j.dump(2) + "\n");
}

}  // namespace tts::engine
