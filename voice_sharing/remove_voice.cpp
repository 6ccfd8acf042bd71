// `tts voices remove`, and the voice folders that install and remove act on.
#include <unistd.h>

#include <cstdlib>

#include "tts/engine/voice_search.h"
#include "tts/voice_sharing/voice_archive.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

// Where else a voice of this name is, and how it can be removed from there.
std::string found_elsewhere(const std::string& name) {
  const auto found = engine::find_voice(name);
  if (!found) return "";
  const fs::path folder = found->parent_path();
  if (same_folder(folder, system_voice_folder()))
    return "; the voice \"" + name + "\" found is " + found->string() +
           ", installed with tts: remove it with the package that installed it (or, as that "
           "folder's owner, tts voices remove " +
           name + " --system)";
  return "; the voice \"" + name + "\" found is " + found->string() + " (tts voices remove " +
         name + " --to " + folder.string() + ")";
}

}  // namespace

fs::path user_voice_folder() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    return fs::path(xdg) / "tts" / "voices";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".local" / "share" / "tts" / "voices";
  throw std::runtime_error("neither XDG_DATA_HOME nor HOME is set: no user voice folder");
}

fs::path system_voice_folder() { return engine::voice_search_path().back(); }

void remove_voice(const std::string& name, const fs::path& target) {
  if (!is_valid_voice_name(name))
    throw std::runtime_error("\"" + name +
                             "\" is not a voice name (1 to 100 of A-Z a-z 0-9 . _ -, not "
                             "starting with .)");
  const fs::path voice = target / name;
  const fs::file_status status = fs::symlink_status(voice);
  if (status.type() == fs::file_type::not_found)
    throw std::runtime_error("no voice \"" + name + "\" in " + target.string() +
                             found_elsewhere(name));
  if (fs::is_symlink(status)) {  // the link goes, not the voice it points at
    fs::remove(voice);
    return;
  }
  if (!fs::is_directory(status) || !fs::exists(voice / "voice.json"))
    throw std::runtime_error(voice.string() +
                             " is not a voice folder (no voice.json); not removed");
  // Renamed first, so that no half-removed voice is ever found by name.
  const fs::path aside = target / ("." + name + ".removing-" + std::to_string(::getpid()));
  fs::remove_all(aside);
  fs::rename(voice, aside);
  fs::remove_all(aside);  // removes links inside, never what they point at
}

}  // namespace tts::sharing
