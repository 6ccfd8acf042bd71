#include "tts/vocoder/model_files.h"

#include <fstream>
#include <stdexcept>

#include "tts/kernels/atomic_file.h"
#include "tts/kernels/optimizer.h"
#include "tts/kernels/parameter_io.h"
#include "tts/kernels/regular_file.h"
#include "tts/kernels/safetensors.h"

namespace fs = std::filesystem;

namespace tts::vocoder {

nlohmann::json vocoder_json(const WaveNetConfig& config, const kernels::MelConfig& features) {
  return {{"format", "tts-vocoder"},
          {"format_version", kVocoderFormatVersion},
          {"weights", "vocoder.safetensors"},
          {"wavenet", config},
          {"features", features}};
}

void check_features_match(const WaveNetConfig& c, const kernels::MelConfig& f) {
  if (c.sample_rate != f.sample_rate || c.hop_length != f.hop_length || c.mel_channels != f.n_mels)
    throw std::invalid_argument(
        "vocoder config and mel features disagree (sample_rate " + std::to_string(c.sample_rate) +
        " vs " + std::to_string(f.sample_rate) + ", hop " + std::to_string(c.hop_length) + " vs " +
        std::to_string(f.hop_length) + ", mel channels " + std::to_string(c.mel_channels) + " vs " +
        std::to_string(f.n_mels) + ")");
}

void save_vocoder(const fs::path& dir, const WaveNetWeights& weights,
                  const kernels::MelConfig& features) {
  fs::create_directories(dir);
  kernels::SafetensorsWriter writer;
  writer.set_metadata("format", "tts-vocoder");
  kernels::add_parameters(writer, weights.parameters());
  writer.write(dir / "vocoder.safetensors");
  kernels::write_file_atomically(dir / "vocoder.json",
                                 vocoder_json(weights.config(), features).dump(2) + "\n");
}

VocoderModel load_vocoder(const fs::path& dir) {
  const fs::path json_path = dir / "vocoder.json";
  std::string text;
  try {
    text = kernels::read_regular_file(json_path);
  } catch (const kernels::RegularFileError& e) {
    throw std::runtime_error(std::string(e.what()) + " (is this a vocoder folder?)");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": not valid JSON: " + e.what());
  }
  VocoderModel model;
  WaveNetConfig config;
  std::string weights_name;
  try {
    if (j.value("format", "") != "tts-vocoder")
      throw std::invalid_argument("\"format\" is not \"tts-vocoder\"");
    if (!j.at("format_version").is_number_integer())
      throw std::invalid_argument("\"format_version\" must be an integer, not " +
                                  j.at("format_version").dump());
    const int version = j.at("format_version").get<int>();
    if (version != kVocoderFormatVersion)
      throw std::invalid_argument("format_version " + std::to_string(version) +
                                  " is not supported (this build reads " +
                                  std::to_string(kVocoderFormatVersion) + ")");
    config = j.at("wavenet").get<WaveNetConfig>();
    model.features = j.at("features").get<kernels::MelConfig>();
    check_features_match(config, model.features);
    // As acoustic.json's: a file beside vocoder.json, so that a voice's checksums cover it (read
    // outside this try, a "weights" of the wrong type escaped as a JSON exception).
    weights_name = j.value("weights", "vocoder.safetensors");
    if (weights_name.empty() || fs::path(weights_name).has_parent_path())
      throw std::invalid_argument("\"weights\" must name a file beside vocoder.json");
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": " + e.what());
  }
  model.weights = std::make_unique<WaveNetWeights>(config);
  const auto file = kernels::SafetensorsFile::load(dir / weights_name);
  kernels::read_parameters(file, model.weights->parameters());
  if (!kernels::all_finite(model.weights->parameters().data(), model.weights->parameters().size()))
    throw std::runtime_error(file.source() + ": weights contain NaN or Inf");
  return model;
}

}  // namespace tts::vocoder
