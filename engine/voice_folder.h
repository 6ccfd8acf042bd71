// A voice is its folder: the checks that every file a voice loads is inside it (or inside the
// sub-folder a model's link names) and is listed in voice.json with its size and CRC-32, so that
// a voice shared as files cannot make the engine read anything else.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tts/engine/voice.h"

namespace tts::engine {

// The most voice.json may hold; a larger one is refused before it is read (a voice.json is a few
// KiB; a 200 MB one would take a gigabyte to parse).
constexpr std::uint64_t kMaxVoiceJsonBytes = std::uint64_t{1} << 20;

// voice.json's "acoustic" or "vocoder" (`key`), `fallback` when absent: the plain name of a
// sub-folder (no '/', not "." or ".."). Throws std::invalid_argument naming the key.
std::string model_folder_name(const nlohmann::json& voice_json, const char* key,
                              const char* fallback);

// Checks one file of voice.json's "files": a regular file (a FIFO, device or link loop is named
// and never opened), inside the voice folder once links are resolved (inside the folder a model
// sub-folder's own link names, for the files under such a link), with the size and CRC-32 listed.
// Throws VoiceError naming the file.
void check_listed_file(const VoiceInfo& info, const VoiceFile& file);

// The weights that a model's JSON (`sub_folder`/`json_name`, already checked) names in "weights"
// (`default_weights` when absent) must be listed in "files": throws VoiceError naming the JSON
// and the file otherwise. A JSON or "weights" that the model's loader refuses is left to it.
void check_weights_listed(const VoiceInfo& info, const std::string& sub_folder,
                          const char* json_name, const char* default_weights);

}  // namespace tts::engine
