#include "tts/train/checkpoint.h"

#include <fstream>
#include <stdexcept>

#include "tts/kernels/atomic_file.h"
#include "tts/kernels/parameter_io.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {
constexpr int kCheckpointVersion = 1;
const char* const kPrefixes[] = {"weights.", "ema.", "adam_m.", "adam_v."};
}  // namespace

bool has_checkpoint(const fs::path& out_dir) { return fs::exists(out_dir / "checkpoint.json"); }

void save_checkpoint(const fs::path& out_dir, const TrainingState& state) {
  fs::create_directories(out_dir);
  const std::string weights_name = "checkpoint-" + std::to_string(state.step) + ".safetensors";
  std::string previous;
  if (has_checkpoint(out_dir)) {
    try {
      std::ifstream in(out_dir / "checkpoint.json");
      previous = nlohmann::json::parse(in).value("weights", "");
    } catch (const std::exception&) {
      previous.clear();  // an unreadable old checkpoint is replaced, not fatal
    }
  }
  kernels::SafetensorsWriter writer;
  writer.set_metadata("format", "tts-vocoder-checkpoint");
  writer.set_metadata("step", std::to_string(state.step));
  const kernels::ParameterSet* sets[] = {&state.weights, &state.ema, &state.first_moment,
                                         &state.second_moment};
  for (int i = 0; i < 4; ++i) kernels::add_parameters(writer, *sets[i], kPrefixes[i]);
  writer.write(out_dir / weights_name);

  nlohmann::json j = {{"format", "tts-vocoder-checkpoint"},
                      {"format_version", kCheckpointVersion},
                      {"step", state.step},
                      {"seed", state.seed},
                      {"next_batch", state.step},
                      {"weights", weights_name},
                      {"wavenet", state.config},
                      {"features", state.features}};
  kernels::write_file_atomically(out_dir / "checkpoint.json", j.dump(2) + "\n");
  if (!previous.empty() && previous != weights_name) {
    std::error_code ec;
    fs::remove(out_dir / previous, ec);
  }
}

void load_checkpoint(const fs::path& out_dir, TrainingState& state) {
  const fs::path json_path = out_dir / "checkpoint.json";
  std::ifstream in(json_path);
  if (!in) throw std::runtime_error(json_path.string() + ": cannot open");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("format_version").get<int>() != kCheckpointVersion)
      throw std::runtime_error("unsupported format_version");
    const auto config = j.at("wavenet").get<vocoder::WaveNetConfig>();
    if (nlohmann::json(config) != nlohmann::json(state.config))
      throw std::runtime_error("the checkpoint's WaveNet config differs from this run's: " +
                               nlohmann::json(config).dump());
    state.step = j.at("step").get<int64_t>();
    state.seed = j.at("seed").get<uint64_t>();
    state.features = j.at("features").get<kernels::MelConfig>();
    const auto file = kernels::SafetensorsFile::load(out_dir / j.at("weights").get<std::string>());
    kernels::ParameterSet* sets[] = {&state.weights, &state.ema, &state.first_moment,
                                     &state.second_moment};
    for (int i = 0; i < 4; ++i) kernels::read_parameters(file, *sets[i], kPrefixes[i]);
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": cannot resume: " + e.what());
  }
}

}  // namespace tts::train
