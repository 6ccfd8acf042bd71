#include "tts/vocoder/conditioning.h"

#include <stdexcept>
#include <string>

#include "tts/kernels/linear_algebra.h"

namespace tts::vocoder {

kernels::Matrix project_conditioning(const WaveNetWeights& weights, const kernels::Matrix& mel) {
  const WaveNetConfig& c = weights.config();
  const WaveNetLayout& lay = weights.layout();
  if (mel.rows() != c.mel_channels)
    throw std::invalid_argument("vocoder: mel has " + std::to_string(mel.rows()) +
                                " channels, the model expects " + std::to_string(c.mel_channels));
  if (mel.cols() < 2) throw std::invalid_argument("vocoder: need at least 2 mel frames");
  kernels::Matrix conditioning(c.layers * 2 * c.residual_channels, mel.cols());
  kernels::gemm(conditioning, weights.parameters().matrix(lay.conditioning),
                kernels::Transpose::kNo, mel, kernels::Transpose::kNo);
  kernels::add_bias(conditioning, weights.parameters().vector(lay.dilated_bias));
  return conditioning;
}

}  // namespace tts::vocoder
