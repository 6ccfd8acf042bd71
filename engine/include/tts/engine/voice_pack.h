// Assembles a voice folder from a trained acoustic model and a trained vocoder (the OUT folders of
// `tts train acoustic` and `tts train vocoder`), so that a training run becomes something `tts say`
// and the C API can load.
#pragma once

#include <filesystem>
#include <vector>

#include "tts/engine/voice.h"

namespace tts::engine {

struct VoicePackSources {
  std::filesystem::path acoustic;  // folder with acoustic.json + acoustic.safetensors
  std::filesystem::path vocoder;   // folder with vocoder.json + vocoder.safetensors
  // Other files copied into the voice as they are (model card, held-out list, training logs):
  // pairs of (source file, path inside the voice folder). The engine does not read them.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> extra_files;
};

// Loads and checks both models, checks that their features agree, writes them into
// FOLDER/acoustic and FOLDER/vocoder through the models' own save functions, copies the extra
// files, writes voice.json, and finally loads the finished voice as `tts say` would. FOLDER may
// exist (its acoustic/ and vocoder/ files are replaced). Throws VoiceError or std::runtime_error
// naming the file and the problem; a failure before voice.json is written leaves no voice.json
// that points at mismatched files.
void pack_voice(const std::filesystem::path& folder, const VoicePackSources& sources,
                const VoiceManifest& manifest);

}  // namespace tts::engine
