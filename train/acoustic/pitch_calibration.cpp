#include "tts/train/pitch_calibration.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/acoustic/variance_adaptor.h"
#include "tts/kernels/atomic_file.h"
#include "tts/train/acoustic_corpus.h"

namespace tts::train {

namespace {

// Σ (x − mean)² over the masked tokens of one utterance, and how many there were.
double centred_squares(const kernels::Matrix& values, const std::vector<float>& mask, long& n) {
  double sum = 0.0;
  n = 0;
  for (std::size_t k = 0; k < mask.size(); ++k)
    if (mask[k] > 0.0f) sum += values(0, static_cast<Eigen::Index>(k)), ++n;
  if (n == 0) return 0.0;
  const double mean = sum / static_cast<double>(n);
  double squares = 0.0;
  for (std::size_t k = 0; k < mask.size(); ++k)
    if (mask[k] > 0.0f) {
      const double e = values(0, static_cast<Eigen::Index>(k)) - mean;
      squares += e * e;
    }
  return squares;
}

}  // namespace

PitchCalibration calibrate_pitch_spread(const PitchCalibrationOptions& o, std::ostream& log) {
  const acoustic::AcousticModelFiles model = acoustic::load_acoustic_files(o.model_dir);
  const acoustic::AcousticConfig& config = model.weights->config();
  if (!config.pitch_energy)
    throw std::runtime_error(o.model_dir.string() +
                             ": this acoustic model has no pitch predictor to calibrate");
  AcousticCorpus corpus =
      load_acoustic_corpus(o.data_dir, model.features, o.language, o.loader_threads);
  for (const auto& w : corpus.warnings) log << "warning: " << w << "\n";
  acoustic::AcousticLossSettings settings;  // aligned as training aligns (acoustic_corpus.h)
  settings.symbol_timings = model.symbols->timings();
  settings.alignment_channel_weights = alignment_channel_weights(corpus.training, config);
  acoustic::AcousticPass pass(*model.weights, settings);

  PitchCalibration c;
  c.previous_spread = config.pitch_spread;
  double target_squares = 0.0, predicted_squares = 0.0;
  kernels::Matrix targets;
  std::vector<float> mask;
  for (std::size_t i = 0; i < corpus.training.size(); ++i) {
    const acoustic::AcousticBatch batch = pack_utterances(corpus.training, i, 1);
    pass.forward(batch);  // durations by alignment search
    const acoustic::FrameVariances v =
        acoustic::frame_variances(batch.log_f0, batch.log_energy, config);
    acoustic::token_means(v.pitch_z, pass.durations(), targets, mask);
    long n = 0;
    target_squares += centred_squares(targets, mask, n);
    predicted_squares += centred_squares(pass.predicted_pitch(), mask, n);
    c.tokens += n;
    ++c.utterances;
  }
  const double dof = static_cast<double>(std::max(1L, c.tokens - c.utterances));
  c.target_spread = std::sqrt(target_squares / dof);
  c.predicted_spread = std::sqrt(predicted_squares / dof);
  if (!(c.predicted_spread > 0.0))
    throw std::runtime_error(o.model_dir.string() + ": the pitch predictor predicts no variation");
  if (!(o.extra_stretch > 0.0))
    throw std::invalid_argument("the extra pitch stretch must be positive");
  c.pitch_spread = std::clamp(o.extra_stretch * c.target_spread / c.predicted_spread, 0.25, 4.0);

  if (o.write) write_pitch_spread(o.model_dir, c.pitch_spread);
  return c;
}

void write_pitch_spread(const std::filesystem::path& model_dir, double pitch_spread) {
  const std::filesystem::path path = model_dir / "acoustic.json";
  nlohmann::json j;
  {
    std::ifstream in(path);
    in >> j;
  }
  j["acoustic"]["pitch_spread"] = static_cast<float>(pitch_spread);
  kernels::write_file_atomically(path, j.dump(2) + "\n");
  acoustic::load_acoustic_files(model_dir);  // what was written still loads
}

}  // namespace tts::train
