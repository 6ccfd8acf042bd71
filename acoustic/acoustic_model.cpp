// load_acoustic_model: the AcousticModel interface over a loaded network. The weights are
// immutable; every synthesis runs on its own AcousticPass (activations), so calls from many
// threads at once are safe.
#include "tts/acoustic/acoustic_model.h"

#include <numeric>
#include <stdexcept>

#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"

namespace tts::acoustic {

namespace {

class LoadedAcousticModel final : public AcousticModel {
 public:
  explicit LoadedAcousticModel(AcousticModelFiles files) : files_(std::move(files)) {}

  void synthesize_in_parts(const std::vector<int32_t>& ids, const AcousticControls& controls,
                           const PartCallback& part) const override {
    if (ids.empty()) throw std::invalid_argument("acoustic model: the id sequence is empty");
    const int symbols = files_.weights->config().symbols;
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] < 0 || ids[i] >= symbols)
        throw std::invalid_argument(
            "acoustic model: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
            " is outside the symbol table (0.." + std::to_string(symbols - 1) + ")");
    AcousticOutput first;
    AcousticLossSettings settings;
    settings.symbol_timings = files_.symbols->timings();
    AcousticPass pass(*files_.weights, settings);
    const int frames = pass.begin_synthesis(ids, controls.rate, controls.pitch_semitones,
                                            first.durations, &first.f0_hz);
    const std::vector<FrameWindow> windows =
        synthesis_windows(frames, pass.decoder_context_frames());
    if (windows.empty()) {  // nothing to sound
      first.mel.resize(files_.weights->config().n_mels, 0);
      part(std::move(first), true);
      return;
    }
    for (std::size_t k = 0; k < windows.size(); ++k) {
      AcousticOutput out = k == 0 ? std::move(first) : AcousticOutput{};
      pass.decode_frames(windows[k].first, windows[k].count, out.mel);
      part(std::move(out), k + 1 == windows.size());
    }
  }

  bool predicts_pitch() const override { return files_.weights->config().pitch_energy; }

  const kernels::MelConfig& features() const override { return files_.features; }

 private:
  AcousticModelFiles files_;
};

}  // namespace

AcousticOutput AcousticModel::synthesize(const std::vector<int32_t>& ids,
                                         const AcousticControls& controls) const {
  AcousticOutput whole;
  Eigen::Index filled = 0;
  bool first = true;
  synthesize_in_parts(ids, controls, [&](AcousticOutput part, bool) {
    if (first) {  // the durations come with it, and so the sentence's frame count
      first = false;
      whole.durations = std::move(part.durations);
      whole.f0_hz = std::move(part.f0_hz);
      whole.mel.resize(part.mel.rows(),
                       std::accumulate(whole.durations.begin(), whole.durations.end(), 0));
    }
    whole.mel.middleCols(filled, part.mel.cols()) = part.mel;
    filled += part.mel.cols();
  });
  return whole;
}

std::unique_ptr<AcousticModel> load_acoustic_model(const std::filesystem::path& dir) {
  return std::make_unique<LoadedAcousticModel>(load_acoustic_files(dir));
}

}  // namespace tts::acoustic
