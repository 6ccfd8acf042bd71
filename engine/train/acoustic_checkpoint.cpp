#include "tts/train/acoustic_checkpoint.h"

#include <fstream>
#include <stdexcept>

#include "tts/kernels/atomic_file.h"
#include "tts/kernels/parameter_io.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {
constexpr int kCheckpointVersion = 1;
const char* const kFormat = "tts-acoustic-checkpoint";
const char* const kPrefixes[] = {"weights.", "ema.", "adam_m.", "adam_v."};
}  // namespace

void save_acoustic_checkpoint(const fs::path& out_dir, const AcousticTrainingState& state) {
  fs::create_directories(out_dir);
  const fs::path json_path = out_dir / "checkpoint.json";
  const std::string weights_name = "checkpoint-" + std::to_string(state.step) + ".safetensors";
  std::string previous;
  if (fs::exists(json_path)) {
    try {
      std::ifstream in(json_path);
      previous = nlohmann::json::parse(in).value("weights", "");
    } catch (const std::exception&) {
      previous.clear();  // an unreadable old checkpoint is replaced, not fatal
    }
  }
  kernels::SafetensorsWriter writer;
  writer.set_metadata("format", kFormat);
  writer.set_metadata("step", std::to_string(state.step));
  const kernels::ParameterSet* sets[] = {&state.weights, &state.ema, &state.first_moment,
                                         &state.second_moment};
  for (int i = 0; i < 4; ++i) kernels::add_parameters(writer, *sets[i], kPrefixes[i]);
  writer.write(out_dir / weights_name);
  const nlohmann::json j = {{"format", kFormat},         {"format_version", kCheckpointVersion},
                            {"step", state.step},        {"seed", state.seed},
                            {"weights", weights_name},   {"acoustic", state.config},
                            {"features", state.features}};
  kernels::write_file_atomically(json_path, j.dump(2) + "\n");
  if (!previous.empty() && previous != weights_name && !fs::path(previous).has_parent_path()) {
    std::error_code ec;
    fs::remove(out_dir / previous, ec);
  }
}

void load_acoustic_checkpoint(const fs::path& out_dir, AcousticTrainingState& state) {
  const fs::path json_path = out_dir / "checkpoint.json";
  std::ifstream in(json_path);
  if (!in) throw std::runtime_error(json_path.string() + ": cannot open");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.value("format", "") != kFormat)
      throw std::runtime_error(std::string("\"format\" is not \"") + kFormat + "\"");
    if (j.at("format_version").get<int>() != kCheckpointVersion)
      throw std::runtime_error("unsupported format_version");
    const auto config = j.at("acoustic").get<frontend::AcousticConfig>();
    if (nlohmann::json(config) != nlohmann::json(state.config))
      throw std::runtime_error("the checkpoint's acoustic config differs from this run's: " +
                               nlohmann::json(config).dump());
    const auto features = j.at("features").get<kernels::MelConfig>();
    if (nlohmann::json(features) != nlohmann::json(state.features))
      throw std::runtime_error("the checkpoint's features differ from this run's: " +
                               nlohmann::json(features).dump());
    state.step = j.at("step").get<int64_t>();
    state.seed = j.at("seed").get<uint64_t>();
    const auto file = kernels::SafetensorsFile::load(out_dir / j.at("weights").get<std::string>());
    kernels::ParameterSet* sets[] = {&state.weights, &state.ema, &state.first_moment,
                                     &state.second_moment};
    for (int i = 0; i < 4; ++i) kernels::read_parameters(file, *sets[i], kPrefixes[i]);
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": cannot resume: " + e.what());
  }
}

}  // namespace tts::train
