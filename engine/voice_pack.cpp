#include "tts/engine/voice_pack.h"

#include <fstream>
#include <sstream>

#include "tts/acoustic/model_files.h"
#include "tts/kernels/atomic_file.h"
#include "tts/vocoder/model_files.h"

namespace tts::engine {

namespace {

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VoiceError(path.string() + ": cannot be read");
  std::ostringstream contents;
  contents << in.rdbuf();
  if (!in.good() && !in.eof()) throw VoiceError(path.string() + ": read failed");
  return contents.str();
}

void check_inside(const std::filesystem::path& relative) {
  if (relative.empty() || relative.is_absolute())
    throw VoiceError("extra file destination \"" + relative.string() +
                     "\" must be a relative path inside the voice folder");
  for (const auto& part : relative)
    if (part == "..")
      throw VoiceError("extra file destination \"" + relative.string() + "\" must not contain ..");
  const std::string top = relative.begin()->string();
  if (top == "acoustic" || top == "vocoder" || relative == "voice.json")
    throw VoiceError("extra file destination \"" + relative.string() +
                     "\" would replace a file of the models");
}

}  // namespace

void pack_voice(const std::filesystem::path& folder, const VoicePackSources& sources,
                const VoiceManifest& manifest) {
  for (const auto& [from, to] : sources.extra_files) check_inside(to);
  // Both models are loaded (every check of their formats) before anything is written.
  const acoustic::AcousticModelFiles acoustic = acoustic::load_acoustic_files(sources.acoustic);
  const vocoder::VocoderModel vocoder = vocoder::load_vocoder(sources.vocoder);
  if (nlohmann::json(acoustic.features) != nlohmann::json(vocoder.features))
    throw VoiceError(sources.acoustic.string() + " and " + sources.vocoder.string() +
                     ": the acoustic model and the vocoder use different mel features");
  std::vector<std::string> extra_contents;
  for (const auto& [from, to] : sources.extra_files)
    extra_contents.push_back(read_whole_file(from));

  // An old voice.json would vouch for files that are about to change: it goes first, and the new
  // one is written last, so an interrupted pack leaves a folder that does not load as a voice.
  std::filesystem::create_directories(folder);
  std::filesystem::remove(folder / "voice.json");
  acoustic::save_acoustic_model(folder / "acoustic", *acoustic.weights, acoustic.features,
                                *acoustic.symbols);
  vocoder::save_vocoder(folder / "vocoder", *vocoder.weights, vocoder.features);
  for (std::size_t i = 0; i < sources.extra_files.size(); ++i) {
    const std::filesystem::path target = folder / sources.extra_files[i].second;
    std::filesystem::create_directories(target.parent_path());
    kernels::write_file_atomically(target, extra_contents[i]);
  }
  write_voice_manifest(folder, manifest, *acoustic.symbols);
  Voice::load(folder);  // the finished voice loads exactly as `tts say` will load it
}

}  // namespace tts::engine
