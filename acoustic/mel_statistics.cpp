#include "tts/acoustic/mel_statistics.h"

#include <cmath>
#include <stdexcept>

namespace tts::acoustic {

AcousticWeights restated_in_mel_statistics(const AcousticWeights& weights, float mel_mean,
                                           float mel_std) {
  if (!std::isfinite(mel_mean) || !std::isfinite(mel_std) || !(mel_std > 0.0f))
    throw std::invalid_argument(
        "restated_in_mel_statistics: mel_mean must be finite and mel_std finite and positive");
  AcousticConfig config = weights.config();
  config.mel_mean = mel_mean;
  config.mel_std = mel_std;
  AcousticWeights restated(config);
  restated.parameters() = weights.parameters();
  // A normalised output z means the log-mel value z·std + mean. Keeping that value fixed under
  // the new statistics: z' = z·(std / std') + (mean − mean') / std', applied to an affine layer
  // W·x + b as W' = W·(std / std'), b' = b·(std / std') + (mean − mean') / std'.
  const double old_std = weights.config().mel_std, old_mean = weights.config().mel_mean;
  const double scale = old_std / mel_std, shift = (old_mean - mel_mean) / mel_std;
  auto& p = restated.parameters();
  for (const LinearLayout& layer : {restated.layout().decoder_output, restated.layout().prior}) {
    p.matrix(layer.weight) *= static_cast<float>(scale);
    auto bias = p.vector(layer.bias);
    for (Eigen::Index k = 0; k < bias.size(); ++k)
      bias[k] = static_cast<float>(bias[k] * scale + shift);
  }
  return restated;
}

}  // namespace tts::acoustic
