#include "tts/vocoder/compact_sampling_weights.h"

#include <stdexcept>
#include <string>

namespace tts::vocoder {

std::size_t CompactSamplingWeights::bytes() const {
  std::size_t total = head_hidden.bytes() + head_output.bytes();
  for (const auto* list : {&dilated_past, &dilated_now, &residual, &skip})
    for (const kernels::CompactMatrix& m : *list) total += m.bytes();
  return total;
}

std::shared_ptr<const CompactSamplingWeights> compact_sampling_weights(
    const WaveNetWeights& weights, kernels::WeightPrecision precision) {
  const WaveNetConfig& c = weights.config();
  const WaveNetLayout& lay = weights.layout();
  const kernels::ParameterSet& p = weights.parameters();
  const Eigen::Index R = c.residual_channels;
  auto compact = [&](const std::string& name, kernels::ConstMatrixRef m) {
    try {
      return kernels::CompactMatrix(m, precision);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("vocoder tensor " + name + ": " + e.what());
    }
  };
  auto out = std::make_shared<CompactSamplingWeights>();
  out->precision = precision;
  const auto skip = p.matrix(lay.skip);
  for (int i = 0; i < c.layers; ++i) {
    const std::string layer = "layers." + std::to_string(i) + ".";
    const auto dilated = p.matrix(lay.dilated[static_cast<std::size_t>(i)]);
    out->dilated_past.push_back(compact(layer + "dilated", dilated.leftCols(R)));
    out->dilated_now.push_back(compact(layer + "dilated", dilated.rightCols(R)));
    if (i + 1 < c.layers)
      out->residual.push_back(
          compact(layer + "residual", p.matrix(lay.residual[static_cast<std::size_t>(i)])));
    out->skip.push_back(compact("skip", skip.middleCols(i * R, R)));
  }
  out->head_hidden = compact("head.hidden", p.matrix(lay.head_hidden));
  out->head_output = compact("head.output", p.matrix(lay.head_output));
  return out;
}

std::size_t sampling_weight_bytes_per_sample(const WaveNetConfig& c,
                                             kernels::WeightPrecision precision) {
  const std::size_t L = static_cast<std::size_t>(c.layers), R = c.residual_channels,
                    S = c.skip_channels, A = c.classes;
  // int8 pads each matrix to tiles of 8 rows × 4 columns and keeps a scale and a sum per row (the
  // sums padded to whole tiles).
  const bool int8 = precision == kernels::WeightPrecision::kInt8;
  auto matrix = [&](std::size_t rows, std::size_t cols) {
    if (!int8) return rows * cols * kernels::weight_precision_bytes(precision);
    const std::size_t padded_rows = (rows + 7) / 8 * 8;
    return padded_rows * ((cols + 3) / 4 * 4) + rows * sizeof(float) +
           padded_rows * sizeof(std::int32_t);
  };
  return L * 2 * matrix(2 * R, R) + (L - 1) * matrix(R, R) + L * matrix(S, R) + matrix(S, S) +
         matrix(A, S);
}

}  // namespace tts::vocoder
