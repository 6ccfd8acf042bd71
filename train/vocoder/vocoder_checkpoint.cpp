#include "tts/train/vocoder_checkpoint.h"

#include <stdexcept>

#include "tts/train/checkpoint_files.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {
const char* const kVocoderFormat = "tts-vocoder-checkpoint";
}  // namespace

void save_vocoder_checkpoint(const fs::path& out_dir, const VocoderTrainingState& state) {
  nlohmann::json fields = batch_layout_json(state.batch);
  fields.update(
      {{"next_batch", state.step}, {"wavenet", state.config}, {"features", state.features}});
  if (state.loss_scale) fields["loss_scale"] = loss_scale_json(*state.loss_scale);
  if (!state.data.is_null()) fields["data"] = state.data;
  write_checkpoint_files(out_dir, kVocoderFormat, state.step, state.seed,
                         {&state.weights, &state.ema, &state.first_moment, &state.second_moment},
                         std::move(fields));
}

nlohmann::json read_vocoder_checkpoint_header(const fs::path& out_dir,
                                              std::vector<std::string>* warnings) {
  return read_checkpoint_header(out_dir, kVocoderFormat, warnings);
}

void load_vocoder_checkpoint(const fs::path& out_dir, VocoderTrainingState& state,
                             std::vector<std::string>* warnings) {
  // The features are read inside the check, whose errors come out as "cannot resume" naming
  // checkpoint.json: read after it, a missing or bad "features" escaped as a JSON or
  // invalid_argument exception (found by fuzz/checkpoint_fuzz).
  kernels::MelConfig features;
  std::optional<LossScaleState> loss_scale;
  const nlohmann::json j = read_checkpoint_files(
      out_dir, kVocoderFormat,
      {&state.weights, &state.ema, &state.first_moment, &state.second_moment},
      [&](const nlohmann::json& j) {
        if (j.contains("loss_scale")) loss_scale = read_loss_scale(j.at("loss_scale"));
        const auto config = j.at("wavenet").get<vocoder::WaveNetConfig>();
        if (nlohmann::json(config) != nlohmann::json(state.config))
          throw std::runtime_error("the checkpoint's WaveNet config differs from this run's: " +
                                   nlohmann::json(config).dump());
        features = j.at("features").get<kernels::MelConfig>();
      },
      warnings);
  state.step = j.at("step").get<int64_t>();
  state.seed = j.at("seed").get<uint64_t>();
  state.loss_scale = loss_scale;
  state.features = features;
}

}  // namespace tts::train
