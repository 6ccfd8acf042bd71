#include "serve_voices.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <system_error>

#include "tts/engine/voice.h"
#include "tts/engine/voice_search.h"

namespace fs = std::filesystem;

namespace tts::cli {

namespace {

// The voice folders of `dir` (each sub-folder holding voice.json), by name.
std::vector<fs::path> voice_folders_in(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (fs::is_regular_file(it->path() / "voice.json", ec)) found.push_back(it->path());
  std::sort(found.begin(), found.end());
  return found;
}

// Every voice folder the server looks at without --voice, or only the --voices-dir ones with it:
// `default` first, then by name, the first folder of a name winning.
std::vector<fs::path> searched_folders(const ServedVoiceChoice& choice) {
  std::vector<fs::path> folders;
  if (choice.names.empty()) folders = engine::list_voices();
  for (const fs::path& dir : choice.voice_dirs)
    for (const fs::path& folder : voice_folders_in(dir)) folders.push_back(folder);
  std::vector<fs::path> unique;
  std::set<std::string> names;
  for (const fs::path& folder : folders)
    if (names.insert(folder.filename().string()).second) unique.push_back(folder);
  std::stable_sort(unique.begin(), unique.end(), [](const fs::path& a, const fs::path& b) {
    const bool a_default = a.filename() == "default", b_default = b.filename() == "default";
    if (a_default != b_default) return a_default;
    return a.filename() < b.filename();
  });
  return unique;
}

bool serves(const std::vector<serve::ServedVoice>& voices, const std::string& name) {
  return std::any_of(voices.begin(), voices.end(),
                     [&](const serve::ServedVoice& v) { return v.name == name; });
}

}  // namespace

std::vector<serve::ServedVoice> voices_to_serve(
    const ServedVoiceChoice& choice, const std::function<void(const std::string&)>& warn) {
  std::vector<serve::ServedVoice> voices;
  for (const std::string& name : choice.names) {
    const fs::path folder = engine::resolve_voice(name);
    const std::string served =
        name.find('/') == std::string::npos ? name : folder.filename().string();
    if (serves(voices, served)) throw std::invalid_argument("voice \"" + served + "\" given twice");
    voices.push_back({served, engine::Voice::load(folder, choice.sampling_weights)});
  }
  for (serve::ServedVoice& found : voices_found_since(choice, voices, warn))
    voices.push_back(std::move(found));
  if (voices.empty()) {
    std::string searched;
    for (const fs::path& dir : engine::voice_search_path())
      searched += (searched.empty() ? "" : ", ") + dir.string();
    for (const fs::path& dir : choice.voice_dirs) searched += ", " + dir.string();
    throw std::runtime_error("no voice to serve (searched: " + searched + ")");
  }
  return voices;
}

std::vector<serve::ServedVoice> voices_found_since(
    const ServedVoiceChoice& choice, const std::vector<serve::ServedVoice>& served,
    const std::function<void(const std::string&)>& warn) {
  std::vector<serve::ServedVoice> found;
  for (const fs::path& folder : searched_folders(choice)) {
    const std::string name = folder.filename().string();
    if (serves(served, name) || serves(found, name)) continue;
    try {
      found.push_back({name, engine::Voice::load(folder, choice.sampling_weights)});
    } catch (const std::exception& e) {
      warn("voice \"" + name + "\" (" + folder.string() + ") is not served: " + e.what());
    }
  }
  return found;
}

}  // namespace tts::cli
