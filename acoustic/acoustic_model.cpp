// load_acoustic_model: the AcousticModel interface over a loaded network. The weights are
// immutable; every synthesize() call runs on its own AcousticPass (activations), so calls from
// many threads at once are safe.
#include "tts/acoustic/acoustic_model.h"

#include <stdexcept>

#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"

namespace tts::acoustic {

namespace {

class LoadedAcousticModel final : public AcousticModel {
 public:
  explicit LoadedAcousticModel(AcousticModelFiles files) : files_(std::move(files)) {}

  AcousticOutput synthesize(const std::vector<int32_t>& ids,
                            const AcousticControls& controls) const override {
    if (ids.empty()) throw std::invalid_argument("acoustic model: the id sequence is empty");
    const int symbols = files_.weights->config().symbols;
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] < 0 || ids[i] >= symbols)
        throw std::invalid_argument(
            "acoustic model: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
            " is outside the symbol table (0.." + std::to_string(symbols - 1) + ")");
    AcousticOutput out;
    AcousticLossSettings settings;
    settings.symbol_timings = files_.symbols->timings();
    AcousticPass pass(*files_.weights, settings);
    pass.synthesize(ids, controls.rate, out.durations, out.mel, controls.pitch_semitones,
                    &out.f0_hz);
    return out;
  }

  bool predicts_pitch() const override { return files_.weights->config().pitch_energy; }

  const kernels::MelConfig& features() const override { return files_.features; }

 private:
  AcousticModelFiles files_;
};

}  // namespace

std::unique_ptr<AcousticModel> load_acoustic_model(const std::filesystem::path& dir) {
  return std::make_unique<LoadedAcousticModel>(load_acoustic_files(dir));
}

}  // namespace tts::acoustic
