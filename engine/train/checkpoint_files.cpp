#include "tts/train/checkpoint_files.h"

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

void write_checkpoint_files(const fs::path& out_dir, const std::string& format, int64_t step,
                            uint64_t seed, const CheckpointTensors& tensors,
                            nlohmann::json fields) {
  fs::create_directories(out_dir);
  const fs::path json_path = out_dir / "checkpoint.json";
  const std::string weights_name = "checkpoint-" + std::to_string(step) + ".safetensors";
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
  writer.set_metadata("format", format);
  writer.set_metadata("step", std::to_string(step));
  for (int i = 0; i < 4; ++i) kernels::add_parameters(writer, *tensors[i], kPrefixes[i]);
  writer.write(out_dir / weights_name);

  fields["format"] = format;
  fields["format_version"] = kCheckpointVersion;
  fields["step"] = step;
  fields["seed"] = seed;
  fields["weights"] = weights_name;
  kernels::write_file_atomically(json_path, fields.dump(2) + "\n");
  // Only a bare file name from our own JSON is ever removed, never a path it might point to.
  if (!previous.empty() && previous != weights_name && !fs::path(previous).has_parent_path()) {
    std::error_code ec;
    fs::remove(out_dir / previous, ec);
  }
}

nlohmann::json read_checkpoint_files(const fs::path& out_dir, const std::string& format,
                                     const MutableCheckpointTensors& tensors,
                                     const std::function<void(const nlohmann::json&)>& check) {
  const fs::path json_path = out_dir / "checkpoint.json";
  std::ifstream in(json_path);
  if (!in) throw std::runtime_error(json_path.string() + ": cannot open");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.value("format", "") != format)
      throw std::runtime_error("\"format\" is not \"" + format + "\"");
    if (j.at("format_version").get<int>() != kCheckpointVersion)
      throw std::runtime_error("unsupported format_version");
    if (check) check(j);
    const auto file = kernels::SafetensorsFile::load(out_dir / j.at("weights").get<std::string>());
    for (int i = 0; i < 4; ++i) kernels::read_parameters(file, *tensors[i], kPrefixes[i]);
    return j;
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": cannot resume: " + e.what());
  }
}

}  // namespace tts::train
