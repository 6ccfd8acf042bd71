// Finding installed voices by name on the voice search path.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tts::engine {

// Folders searched for voices, in order: $TTS_VOICE_PATH (colon-separated), the user's data folder
// ($XDG_DATA_HOME/tts/voices or ~/.local/share/tts/voices), then the installed voices folder,
// <prefix>/share/tts/voices, found at run time from where the code runs (libtts.so in
// <prefix>/lib, or the `tts` executable in <prefix>/bin), so an installed prefix can be moved. Code
// run from the build tree, where no such folder is next to it, searches the source tree's voices/
// instead. Environment variables are read at each call.
std::vector<std::filesystem::path> voice_search_path();

// The folder of the voice named `name` (a folder holding voice.json), or nothing if none is found.
std::optional<std::filesystem::path> find_voice(const std::string& name);

// Every voice folder on the search path (first occurrence of each name wins).
std::vector<std::filesystem::path> list_voices();

}  // namespace tts::engine
