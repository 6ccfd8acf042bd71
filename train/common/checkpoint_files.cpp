#include "tts/train/checkpoint_files.h"

#include <stdexcept>

#include "tts/kernels/atomic_file.h"
#include "tts/kernels/file_record.h"
#include "tts/kernels/parameter_io.h"
#include "tts/kernels/regular_file.h"
#include "tts/kernels/safetensors.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {
constexpr int kCheckpointVersion = 1;
const char* const kPrefixes[] = {"weights.", "ema.", "adam_m.", "adam_v."};

// Checks every file that checkpoint.json's "files" lists (its weights file among them) against
// its recorded size and CRC-32, so that a damaged file is refused rather than resumed from.
void verify_files(const fs::path& out_dir, const nlohmann::json& files,
                  const std::string& weights) {
  bool weights_listed = false;
  for (const auto& f : files) {
    const kernels::FileRecord record = kernels::parse_file_record(f);
    const std::string& name = record.path;
    if (name.empty() || fs::path(name).has_parent_path() || name == "..")
      throw std::runtime_error("\"files\" lists \"" + name + "\", not a file name");
    weights_listed = weights_listed || name == weights;
    kernels::verify_file(out_dir, record, "checkpoint.json");
  }
  if (!weights_listed) throw std::runtime_error("\"files\" has no checksum of " + weights);
}

std::string weights_file_name(int64_t step) {
  return "checkpoint-" + std::to_string(step) + ".safetensors";
}

// The weights file records the step and seed it was written at (its safetensors metadata; the
// seed only in checkpoints written since it was added): checkpoint.json must say the same.
void check_weights_record(const kernels::SafetensorsFile& file, const nlohmann::json& j) {
  for (const char* key : {"step", "seed"}) {
    const auto found = file.metadata().find(key);
    if (found == file.metadata().end()) continue;
    const std::string recorded = j.at(key).dump();
    if (found->second != recorded)
      throw std::runtime_error(std::string("its \"") + key + "\" is " + recorded + " but " +
                               j.at("weights").get<std::string>() + " was written at " + key + " " +
                               found->second + ": was it edited?");
  }
}

}  // namespace

bool has_checkpoint(const fs::path& out_dir) { return fs::exists(out_dir / "checkpoint.json"); }

void write_checkpoint_files(const fs::path& out_dir, const std::string& format, int64_t step,
                            uint64_t seed, const CheckpointTensors& tensors,
                            nlohmann::json fields) {
  fs::create_directories(out_dir);
  kernels::remove_stale_temporaries(out_dir);
  const fs::path json_path = out_dir / "checkpoint.json";
  const std::string weights_name = weights_file_name(step);
  std::string previous;
  if (fs::exists(json_path)) {
    try {
      previous = nlohmann::json::parse(kernels::read_regular_file(json_path)).value("weights", "");
    } catch (const std::exception&) {
      previous.clear();  // an unreadable old checkpoint is replaced, not fatal
    }
  }
  kernels::SafetensorsWriter writer;
  writer.set_metadata("format", format);
  writer.set_metadata("step", std::to_string(step));
  writer.set_metadata("seed", std::to_string(seed));
  for (int i = 0; i < 4; ++i) kernels::add_parameters(writer, *tensors[i], kPrefixes[i]);
  writer.write(out_dir / weights_name);

  fields["format"] = format;
  fields["format_version"] = kCheckpointVersion;
  fields["step"] = step;
  fields["seed"] = seed;
  fields["weights"] = weights_name;
  fields["files"] = nlohmann::json::array(
      {kernels::file_record_json(kernels::record_file(out_dir, weights_name))});
  kernels::write_file_atomically(json_path, fields.dump(2) + "\n");
  // Only a bare file name from our own JSON is ever removed, never a path it might point to.
  if (!previous.empty() && previous != weights_name && !fs::path(previous).has_parent_path()) {
    std::error_code ec;
    fs::remove(out_dir / previous, ec);
  }
}

nlohmann::json read_checkpoint_header(const fs::path& out_dir, const std::string& format,
                                      std::vector<std::string>* warnings) {
  const fs::path json_path = out_dir / "checkpoint.json";
  std::error_code ec;
  if (!fs::exists(json_path, ec))
    throw std::runtime_error(out_dir.string() +
                             ": no checkpoint to resume from (there is no checkpoint.json; leave "
                             "out --resume to start a new run there)");
  kernels::remove_stale_temporaries(out_dir);
  const std::string text = kernels::read_regular_file(json_path);
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.value("format", "") != format)
      throw std::runtime_error("\"format\" is not \"" + format + "\"");
    if (j.at("format_version").get<int>() != kCheckpointVersion)
      throw std::runtime_error("unsupported format_version");
    const auto step = j.at("step").get<int64_t>();
    j.at("seed").get<uint64_t>();
    const auto weights = j.at("weights").get<std::string>();
    // The weights file is named after its step, so an edited "step" (which would resume the
    // weights of one step as another, or end a run as already trained) is refused here; the
    // weights' own record is compared once they are read (read_checkpoint_files).
    if (weights != weights_file_name(step))
      throw std::runtime_error("its \"step\" is " + std::to_string(step) + " but its weights are " +
                               weights + ": was it edited?");
    if (j.contains("files")) {
      verify_files(out_dir, j.at("files"), weights);
    } else if (warnings) {
      // Written before checkpoints carried checksums: still the user's training, so it is read,
      // but nothing vouches for its bytes.
      warnings->push_back(json_path.string() +
                          " records no checksum of its files (an older checkpoint): " + weights +
                          " is read unverified");
    }
    return j;
  } catch (const std::exception& e) {
    throw std::runtime_error(json_path.string() + ": cannot resume: " + e.what());
  }
}

void check_resume_seed(const fs::path& out_dir, uint64_t recorded, uint64_t asked) {
  if (recorded == asked) return;
  // The seed draws every batch (and the initial weights): a run resumed under another one would
  // be neither run, while checkpoint.json went on naming the first.
  throw std::runtime_error(
      (out_dir / "checkpoint.json").string() + ": cannot resume: it was trained with --seed " +
      std::to_string(recorded) + ", this run asks for --seed " + std::to_string(asked) +
      " (resume with --seed " + std::to_string(recorded) + ", or start a new --out)");
}

std::string already_trained_message(const fs::path& out_dir, int64_t step, int64_t steps) {
  return out_dir.string() + ": already trained to step " + std::to_string(step) +
         "; ask for more --steps to train further (this run asks for " + std::to_string(steps) +
         ")";
}

nlohmann::json read_checkpoint_files(const fs::path& out_dir, const std::string& format,
                                     const MutableCheckpointTensors& tensors,
                                     const std::function<void(const nlohmann::json&)>& check,
                                     std::vector<std::string>* warnings) {
  const nlohmann::json j = read_checkpoint_header(out_dir, format, warnings);
  try {
    if (check) check(j);
    const auto file = kernels::SafetensorsFile::load(out_dir / j.at("weights").get<std::string>());
    check_weights_record(file, j);
    for (int i = 0; i < 4; ++i) kernels::read_parameters(file, *tensors[i], kPrefixes[i]);
    return j;
  } catch (const std::exception& e) {
    throw std::runtime_error((out_dir / "checkpoint.json").string() +
                             ": cannot resume: " + e.what());
  }
}

}  // namespace tts::train
