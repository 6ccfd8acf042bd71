#include "voice_folder.h"

#include <algorithm>
#include <filesystem>

#include "tts/kernels/regular_file.h"

namespace fs = std::filesystem;

namespace tts::engine {

namespace {

// Whether the resolved path `real` is `root` or below it (both canonical).
bool lies_within(const fs::path& real, const fs::path& root) {
  auto part = real.begin();
  for (const auto& root_part : root) {
    if (part == real.end() || *part != root_part) return false;
    ++part;
  }
  return true;
}

fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) throw VoiceError(path.string() + ": cannot resolve its links: " + ec.message());
  return real;
}

}  // namespace

std::string model_folder_name(const nlohmann::json& voice_json, const char* key,
                              const char* fallback) {
  if (!voice_json.contains(key)) return fallback;
  const nlohmann::json& value = voice_json.at(key);
  const std::string rule = std::string("\"") + key +
                           "\" must be the name of a sub-folder of the voice (such as \"" +
                           fallback + "\"), not ";
  if (!value.is_string()) throw std::invalid_argument(rule + value.dump());
  const std::string name = value.get<std::string>();
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != std::string::npos ||
      std::any_of(name.begin(), name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    throw std::invalid_argument(rule + value.dump());
  return name;
}

void check_listed_file(const VoiceInfo& info, const VoiceFile& file) {
  const fs::path path = info.folder / file.path;
  try {
    kernels::require_regular_file(path);
  } catch (const kernels::RegularFileError& e) {
    if (e.missing()) throw VoiceError(path.string() + ": missing (listed in voice.json)");
    throw VoiceError(std::string(e.what()) + " (listed in voice.json)");
  }
  // A model sub-folder may be a link (the bundled voices share one vocoder): its files are held
  // to the folder it names; every other file to the voice folder.
  const fs::path relative(file.path);
  const std::string top = relative.begin()->string();
  std::error_code ec;
  const bool through_model_link = std::next(relative.begin()) != relative.end() &&
                                  (top == info.acoustic_folder || top == info.vocoder_folder) &&
                                  fs::is_symlink(info.folder / top, ec);
  const fs::path root = through_model_link ? info.folder / top : info.folder;
  const fs::path real = resolved(path);
  if (!lies_within(real, resolved(root)))
    throw VoiceError(path.string() + ": a link to " + real.string() + ", outside " +
                     (through_model_link ? "the folder that " + top + "/ links to"
                                         : std::string("the voice folder")) +
                     " (voice.json lists it; a voice's files must be its own)");
  try {
    kernels::verify_file(info.folder, file, "voice.json");
  } catch (const kernels::FileRecordError& e) {
    throw VoiceError(e.what());
  }
}

void check_weights_listed(const VoiceInfo& info, const std::string& sub_folder,
                          const char* json_name, const char* default_weights) {
  const fs::path json_path = info.folder / sub_folder / json_name;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(kernels::read_regular_file(json_path));
  } catch (const std::exception&) {
    return;  // the model's loader names what is wrong with it
  }
  if (!j.is_object()) return;
  const nlohmann::json weights = j.contains("weights") ? j.at("weights") : default_weights;
  if (!weights.is_string()) return;
  const std::string name = weights.get<std::string>();
  if (name.empty() || fs::path(name).has_parent_path()) return;
  const std::string relative = sub_folder + "/" + name;
  for (const auto& listed : info.files)
    if (fs::path(listed.path).lexically_normal() == fs::path(relative)) return;
  throw VoiceError(json_path.string() + ": \"weights\" names " + relative +
                   ", which voice.json's \"files\" does not list (every file a voice loads is "
                   "listed there with its size and CRC-32)");
}

}  // namespace tts::engine
