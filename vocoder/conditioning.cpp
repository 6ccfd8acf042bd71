#include "tts/vocoder/conditioning.h"

#include <stdexcept>
#include <string>

#include "tts/kernels/linear_algebra.h"

namespace tts::vocoder {

kernels::Matrix project_conditioning_frames(const WaveNetWeights& weights,
                                            const kernels::Matrix& mel) {
  const WaveNetConfig& c = weights.config();
  const WaveNetLayout& lay = weights.layout();
  if (mel.rows() != c.mel_channels)
    throw std::invalid_argument("vocoder: mel has " + std::to_string(mel.rows()) +
                                " channels, the model expects " + std::to_string(c.mel_channels));
  const auto projection = weights.parameters().matrix(lay.conditioning);
  const auto bias = weights.parameters().vector(lay.dilated_bias);
  kernels::Matrix conditioning(c.layers * 2 * c.residual_channels, mel.cols());
  // A frame at a time, not one GEMM over them all: a GEMM may round a column differently with the
  // number of columns, and a stream's frames come in parts (Sampler::extend), which must not
  // change its audio. A frame's projection is under a 400th of the work of its samples.
  for (Eigen::Index f = 0; f < mel.cols(); ++f) {
    kernels::gemv(conditioning.col(f), projection, mel.col(f));
    conditioning.col(f) += bias;
  }
  return conditioning;
}

kernels::Matrix project_conditioning(const WaveNetWeights& weights, const kernels::Matrix& mel) {
  if (mel.cols() < 2) throw std::invalid_argument("vocoder: need at least 2 mel frames");
  return project_conditioning_frames(weights, mel);
}

}  // namespace tts::vocoder
