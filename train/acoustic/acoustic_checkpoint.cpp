#include "tts/train/acoustic_checkpoint.h"

#include <stdexcept>

#include "tts/train/checkpoint_files.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {
const char* const kFormat = "tts-acoustic-checkpoint";
}  // namespace

void save_acoustic_checkpoint(const fs::path& out_dir, const AcousticTrainingState& state) {
  nlohmann::json fields = batch_layout_json(state.batch);
  fields.update(
      {{"acoustic", state.config}, {"features", state.features}, {"run_seed", state.run_seed}});
  if (state.loss_scale) fields["loss_scale"] = loss_scale_json(*state.loss_scale);
  if (!state.data.is_null()) fields["data"] = state.data;
  write_checkpoint_files(out_dir, kFormat, state.step, state.seed,
                         {&state.weights, &state.ema, &state.first_moment, &state.second_moment},
                         std::move(fields));
}

nlohmann::json read_acoustic_checkpoint_header(const fs::path& out_dir,
                                               std::vector<std::string>* warnings) {
  return read_checkpoint_header(out_dir, kFormat, warnings);
}

void load_acoustic_checkpoint(const fs::path& out_dir, AcousticTrainingState& state,
                              std::vector<std::string>* warnings) {
  // run_seed is read inside the check, whose errors come out as "cannot resume" naming
  // checkpoint.json: read after it, one of the wrong type escaped as a JSON exception (found by
  // fuzz/checkpoint_fuzz).
  uint64_t run_seed = state.run_seed;
  std::optional<LossScaleState> loss_scale;
  const nlohmann::json j = read_checkpoint_files(
      out_dir, kFormat, {&state.weights, &state.ema, &state.first_moment, &state.second_moment},
      [&](const nlohmann::json& j) {
        if (j.contains("loss_scale")) loss_scale = read_loss_scale(j.at("loss_scale"));
        const auto config = j.at("acoustic").get<acoustic::AcousticConfig>();
        if (nlohmann::json(config) != nlohmann::json(state.config))
          throw std::runtime_error("the checkpoint's acoustic config differs from this run's: " +
                                   nlohmann::json(config).dump());
        const auto features = j.at("features").get<kernels::MelConfig>();
        if (nlohmann::json(features) != nlohmann::json(state.features))
          throw std::runtime_error("the checkpoint's features differ from this run's: " +
                                   nlohmann::json(features).dump());
        run_seed = j.value("run_seed", run_seed);
      },
      warnings);
  state.step = j.at("step").get<int64_t>();
  state.seed = j.at("seed").get<uint64_t>();
  state.loss_scale = loss_scale;
  state.run_seed = run_seed;
}

}  // namespace tts::train
