// The options of `tts voices create` made whole: the voice name checked, the espeak-ng voice of
// the language, and the folders it reads and writes.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "tts/engine/voice_search.h"
#include "tts/frontend/language.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/voice_creation/create_voice.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

fs::path home_folder(const char* variable, const char* fallback) {
  if (const char* value = std::getenv(variable); value && *value) return value;
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    throw std::runtime_error(std::string("neither $") + variable + " nor $HOME is set");
  return fs::path(home) / fallback;
}

// The folder `name` on the voice search path (the first that holds `inside`).
fs::path find_on_voice_path(const std::string& name, const std::string& inside,
                            const std::string& what) {
  for (const fs::path& folder : engine::voice_search_path())
    if (fs::exists(folder / name / inside)) return folder / name;
  throw std::runtime_error("no " + what + " (" + name + "/" + inside +
                           ") on the voice search path; give its folder");
}

void check_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' || name[0] == '-')
    throw std::invalid_argument("voice name \"" + name +
                                "\": 1 to 64 characters, not starting with '.' or '-'");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      throw std::invalid_argument("voice name \"" + name +
                                  "\": only letters, digits, '-', '_' and '.'");
}

}  // namespace

std::string espeak_voice_of(const std::string& tag) {
  std::string lower = tag;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::replace(lower.begin(), lower.end(), '_', '-');
  std::vector<std::string> candidates = {lower};
  // Regions espeak-ng has no voice of, read by the nearest one it has.
  if (lower.rfind("es-", 0) == 0 && lower != "es-es") candidates.push_back("es-419");
  if (lower.rfind("fr-", 0) == 0) candidates.push_back("fr-fr");
  if (lower.rfind("pt-", 0) == 0 && lower != "pt-br") candidates.push_back("pt");
  candidates.push_back(lower.substr(0, lower.find('-')));
  for (const std::string& candidate : candidates) {
    try {
      frontend::TextPipeline probe(candidate);
      return candidate;
    } catch (const std::exception&) {
    }
  }
  throw std::invalid_argument("language \"" + tag + "\": espeak-ng has no voice for it");
}

VoiceCreationOptions resolve_defaults(VoiceCreationOptions o) {
  check_name(o.name);
  o.data_dir = fs::absolute(o.data_dir);
  if (!fs::is_directory(o.data_dir))
    throw std::runtime_error(o.data_dir.string() + ": not a folder");
  if (!frontend::looks_like_bcp47(o.language))
    throw std::invalid_argument("--lang \"" + o.language +
                                "\" is not a BCP 47 tag (en-US, fr-CA, …)");
  o.language = frontend::bcp47_casing(o.language);
  if (o.espeak_voice.empty()) o.espeak_voice = espeak_voice_of(o.language);
  if (o.base_dir.empty())
    o.base_dir = find_on_voice_path("base", "acoustic/acoustic.json", "voice base");
  if (o.vocoder_dir.empty())
    o.vocoder_dir = find_on_voice_path("shared-vocoder", "vocoder.json", "shared vocoder");
  if (o.out_dir.empty())
    o.out_dir = home_folder("XDG_DATA_HOME", ".local/share") / "tts" / "voices" / o.name;
  if (o.work_dir.empty())
    o.work_dir = home_folder("XDG_CACHE_HOME", ".cache") / "tts" / "voices-create" / o.name;
  if (!o.held_out_file.empty()) o.held_out_file = fs::absolute(o.held_out_file);
  o.base_dir = fs::absolute(o.base_dir);
  o.vocoder_dir = fs::absolute(o.vocoder_dir);
  o.out_dir = fs::absolute(o.out_dir);
  o.work_dir = fs::absolute(o.work_dir);
  return o;
}

}  // namespace tts::creation
