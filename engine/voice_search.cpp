#include "tts/engine/voice_search.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace tts::engine {

namespace {

// True when `path` is `folder` or inside it (both absolute and lexically normal).
bool is_within(const fs::path& path, const fs::path& folder) {
  auto p = path.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
    if (f->empty()) continue;  // the trailing "" of "a/b/"
    if (p == path.end() || *p != *f) return false;
  }
  return true;
}

fs::path canonical_or_absolute(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  if (!ec) return c;
  c = fs::absolute(p, ec);
  return ec ? p : c.lexically_normal();
}

// The installed voices folder as it would be next to the code that runs now: the shared library
// holding this function (libtts.so: its folder is <prefix>/<libdir>) or, when the engine is linked
// into the executable itself (the `tts` command), the executable (<prefix>/<bindir>). Found once;
// nothing when neither can be located.
struct Location {
  fs::path module;             // the library or executable, symbolic links resolved
  fs::path installed_dir;      // <its folder>/../share/tts/voices (as the install lays it out)
  bool in_build_tree = false;  // run from the build tree: no install around it
};

Location locate() {
  Location where;
  Dl_info info{};
  link_map* map = nullptr;
  bool is_library = false;
  if (dladdr1(reinterpret_cast<void*>(&voice_search_path), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) != 0 &&
      map && map->l_name && map->l_name[0] != '\0') {
    where.module =
        canonical_or_absolute(map->l_name);  // a shared library (the main program's is "")
    is_library = true;
  } else {
    std::error_code ec;
    where.module = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {  // no /proc: the folder chosen at configure time
      where.installed_dir = TTS_INSTALLED_VOICES_DIR;
      return where;
    }
  }
  where.installed_dir =
      (where.module.parent_path() / (is_library ? TTS_VOICES_FROM_LIBDIR : TTS_VOICES_FROM_BINDIR))
          .lexically_normal();
  std::error_code ec;
  where.in_build_tree = !fs::is_directory(where.installed_dir, ec) &&
                        is_within(where.module, canonical_or_absolute(TTS_BUILD_DIR));
  return where;
}

const Location& location() {
  static const Location where = locate();
  return where;
}

}  // namespace

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
  const Location& where = location();
  folders.push_back(where.in_build_tree ? fs::path(TTS_SOURCE_VOICES_DIR) : where.installed_dir);
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
    std::vector<fs::path> here;
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (fs::is_regular_file(entry.path() / "voice.json", ec)) here.push_back(entry.path());
    std::sort(here.begin(), here.end());  // the same order on every file system
    for (auto& voice : here)
      if (seen.insert(voice.filename().string()).second) voices.push_back(std::move(voice));
  }
  return voices;
}

}  // namespace tts::engine
