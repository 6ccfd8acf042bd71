#include "tts/engine/voice_search.h"

#include <cstdlib>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace tts::engine {

std::vector<fs::path> voice_search_path() {
  std::vector<fs::path> folders;
  if (const char* env = std::getenv("TTS_VOICE_PATH")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':'))
      if (!item.empty()) folders.emplace_back(item);
  }
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    folders.push_back(fs::path(xdg) / "tts" / "voices");
  else if (const char* home = std::getenv("HOME"); home && *home)
    folders.push_back(fs::path(home) / ".local" / "share" / "tts" / "voices");
  folders.emplace_back(TTS_INSTALLED_VOICES_DIR);
  folders.emplace_back(TTS_SOURCE_VOICES_DIR);
  return folders;
}

std::optional<fs::path> find_voice(const std::string& name) {
  for (const auto& folder : voice_search_path()) {
    std::error_code ec;
    fs::path candidate = folder / name;
    if (fs::is_regular_file(candidate / "voice.json", ec)) return candidate;
  }
  return std::nullopt;
}

std::vector<fs::path> list_voices() {
  std::vector<fs::path> voices;
  std::set<std::string> seen;
  for (const auto& folder : voice_search_path()) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (!fs::is_regular_file(entry.path() / "voice.json", ec)) continue;
      if (seen.insert(entry.path().filename().string()).second) voices.push_back(entry.path());
    }
  }
  return voices;
}

}  // namespace tts::engine
