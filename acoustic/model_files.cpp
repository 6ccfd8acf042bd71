#include "tts/acoustic/model_files.h"

#include <fstream>
#include <stdexcept>

#include "tts/kernels/atomic_file.h"
#include "tts/kernels/optimizer.h"
#include "tts/kernels/parameter_io.h"
#include "tts/kernels/regular_file.h"
#include "tts/kernels/safetensors.h"

namespace fs = std::filesystem;

namespace tts::acoustic {

namespace {
const char* const kFormat = "tts-acoustic";
const char* const kWeightsName = "acoustic.safetensors";
}  // namespace

void check_acoustic_consistency(const AcousticConfig& config, const kernels::MelConfig& features,
                                const frontend::SymbolTable& symbols) {
  config.validate();
  features.validate();
  if (config.n_mels != features.n_mels)
    throw std::invalid_argument("acoustic config n_mels " + std::to_string(config.n_mels) +
                                " differs from the features' n_mels " +
                                std::to_string(features.n_mels));
  if (static_cast<std::size_t>(config.symbols) != symbols.size())
    throw std::invalid_argument("acoustic config symbols " + std::to_string(config.symbols) +
                                " differs from the symbol table's size " +
                                std::to_string(symbols.size()));
}

nlohmann::json acoustic_json(const AcousticConfig& config, const kernels::MelConfig& features,
                             const frontend::SymbolTable& symbols) {
  nlohmann::json acoustic = config;
  const int version = config.speakers > 1   ? kAcousticFormatVersionWithSpeakers
                      : config.pitch_energy ? kAcousticFormatVersion
                                            : kAcousticFormatVersionWithoutPitch;
  // Version 2 means "no pitch and energy" and predates the field; later versions must say it,
  // because a reader takes a missing field to mean they are there.
  if (version == kAcousticFormatVersionWithoutPitch) acoustic.erase("pitch_energy");
  return {{"format", kFormat},    {"format_version", version}, {"weights", kWeightsName},
          {"acoustic", acoustic}, {"features", features},      {"symbol_table", symbols.to_json()}};
}

void save_acoustic_model(const fs::path& dir, const AcousticWeights& weights,
                         const kernels::MelConfig& features, const frontend::SymbolTable& symbols) {
  check_acoustic_consistency(weights.config(), features, symbols);
  fs::create_directories(dir);
  kernels::SafetensorsWriter writer;
  writer.set_metadata("format", kFormat);
  kernels::add_parameters(writer, weights.parameters());
  writer.write(dir / kWeightsName);
  kernels::write_file_atomically(dir / "acoustic.json",
                                 acoustic_json(weights.config(), features, symbols).dump(2) + "\n");
}

AcousticModelFiles load_acoustic_files(const fs::path& dir) {
  const fs::path json_path = dir / "acoustic.json";
  std::string text;
  try {
    text = kernels::read_regular_file(json_path);
  } catch (const kernels::RegularFileError& e) {
    throw std::runtime_error(std::string(e.what()) + " (is this an acoustic model folder?)");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": not valid JSON: " + e.what());
  }
  AcousticModelFiles model;
  AcousticConfig config;
  std::string weights_name;
  try {
    if (!j.is_object() || j.value("format", "") != kFormat)
      throw std::invalid_argument(std::string("\"format\" is not \"") + kFormat + "\"");
    if (!j.at("format_version").is_number_integer())
      throw std::invalid_argument("\"format_version\" must be an integer, not " +
                                  j.at("format_version").dump());
    const int version = j.at("format_version").get<int>();
    if (version < kAcousticFormatVersionWithoutPitch ||
        version > kAcousticFormatVersionWithSpeakers)
      throw std::invalid_argument(
          "format_version " + std::to_string(version) + " is not supported (this build reads " +
          std::to_string(kAcousticFormatVersionWithoutPitch) + " to " +
          std::to_string(kAcousticFormatVersionWithSpeakers) +
          (version > kAcousticFormatVersionWithSpeakers ? "; a newer tts wrote it: upgrade tts)"
                                                        : ")"));
    const nlohmann::json& acoustic = j.at("acoustic");
    if (version == kAcousticFormatVersionWithoutPitch && acoustic.is_object() &&
        acoustic.contains("pitch_energy"))
      throw std::invalid_argument("format_version 2 predates \"pitch_energy\"");
    if (version < kAcousticFormatVersionWithSpeakers && acoustic.is_object() &&
        (acoustic.contains("speakers") || acoustic.contains("speaker")))
      throw std::invalid_argument("format_version " + std::to_string(version) +
                                  " predates \"speakers\" (several speakers are version 4)");
    config = acoustic.get<AcousticConfig>();
    // Version 2 models have no variance adaptor: they still speak, but cannot shift the pitch.
    if (version == kAcousticFormatVersionWithoutPitch) config.pitch_energy = false;
    model.features = j.at("features").get<kernels::MelConfig>();
    model.symbols = std::make_unique<frontend::SymbolTable>(
        frontend::SymbolTable::from_json(j.at("symbol_table")));
    check_acoustic_consistency(config, model.features, *model.symbols);
    weights_name = j.value("weights", kWeightsName);
    if (weights_name.empty() || fs::path(weights_name).has_parent_path())
      throw std::invalid_argument("\"weights\" must name a file beside acoustic.json");
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": " + e.what());
  }
  model.weights = std::make_unique<AcousticWeights>(config);
  // SafetensorsError names the file, and the tensor where one is wrong.
  const auto file = kernels::SafetensorsFile::load(dir / weights_name);
  kernels::read_parameters(file, model.weights->parameters());
  if (file.names().size() != model.weights->parameters().entries().size())
    throw std::runtime_error(file.source() + ": holds " + std::to_string(file.names().size()) +
                             " tensors, the model has " +
                             std::to_string(model.weights->parameters().entries().size()));
  const auto& parameters = model.weights->parameters();
  if (!kernels::all_finite(parameters.data(), parameters.size()))
    throw std::runtime_error((dir / weights_name).string() + ": weights contain NaN or Inf");
  return model;
}

}  // namespace tts::acoustic
