#include "tts/acoustic/variance_adaptor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace tts::acoustic {

using kernels::Matrix;

void variance_predictor_forward(const LayerContext& c, const VarianceLayout& layout,
                                kernels::View encoded, const kernels::Lengths& lengths,
                                VariancePredictorActivations& a,
                                const std::vector<Dropout>& dropouts) {
  reserve_blocks(a.blocks, layout.blocks.size(), c.backend);
  while (a.outs.size() < layout.blocks.size()) a.outs.emplace_back(c.backend);
  kernels::View x = encoded;
  for (std::size_t i = 0; i < layout.blocks.size(); ++i) {
    const Dropout dropout = i < dropouts.size() ? dropouts[i] : Dropout{};
    conv_block_forward(c, layout.blocks[i], x, lengths, a.blocks[i], a.outs[i], dropout);
    x = a.outs[i].view();
  }
  linear_forward(c, layout.output, x, a.predicted);
}

void variance_predictor_backward(const LayerContext& c, const VarianceLayout& layout,
                                 const kernels::Lengths& lengths, VariancePredictorActivations& a,
                                 kernels::View d_predicted, kernels::View d_encoded,
                                 ConvBlockScratch& scratch) {
  kernels::Backend& B = c.backend;
  const int tokens = d_predicted.cols;
  const std::size_t last = layout.blocks.size() - 1;
  a.d_hidden.resize(a.outs[last].rows(), tokens);
  B.set_zero(a.d_hidden.view());
  linear_backward(c, layout.output, a.outs[last].view(), d_predicted, a.d_hidden.view());
  for (std::size_t i = layout.blocks.size(); i-- > 0;) {
    if (i == 0) {
      conv_block_backward(c, layout.blocks[0], lengths, a.blocks[0], a.d_hidden.view(), d_encoded,
                          scratch);
    } else {
      a.d_in.resize(a.outs[i - 1].rows(), tokens);
      B.set_zero(a.d_in.view());
      conv_block_backward(c, layout.blocks[i], lengths, a.blocks[i], a.d_hidden.view(),
                          a.d_in.view(), scratch);
      std::swap(a.d_hidden, a.d_in);
    }
  }
}

FrameVariances frame_variances(const Matrix& log_f0, const Matrix& log_energy,
                               const AcousticConfig& config) {
  if (log_f0.rows() != 1 || log_energy.rows() != 1 || log_f0.cols() != log_energy.cols())
    throw std::invalid_argument("acoustic model: pitch and energy must be 1 × frames each");
  FrameVariances v;
  const Eigen::Index frames = log_f0.cols();
  v.log_f0.resize(1, frames);
  v.pitch_z.resize(1, frames);
  v.energy_z.resize(1, frames);
  for (Eigen::Index f = 0; f < frames; ++f) {
    const float pitch = log_f0(0, f);
    v.log_f0(0, f) = std::isnan(pitch) ? config.pitch_mean : pitch;
    v.pitch_z(0, f) = (v.log_f0(0, f) - config.pitch_mean) / config.pitch_std;
    v.energy_z(0, f) = (log_energy(0, f) - config.energy_mean) / config.energy_std;
  }
  return v;
}

Matrix continuous_log_f0(const std::vector<float>& f0_hz) {
  const auto n = static_cast<Eigen::Index>(f0_hz.size());
  Matrix out = Matrix::Constant(1, n, std::numeric_limits<float>::quiet_NaN());
  Eigen::Index previous = -1;  // the last voiced frame seen
  for (Eigen::Index f = 0; f < n; ++f) {
    if (!(f0_hz[static_cast<std::size_t>(f)] > 0.0f)) continue;
    const float value = std::log(f0_hz[static_cast<std::size_t>(f)]);
    out(0, f) = value;
    if (previous < 0) {
      out.leftCols(f).setConstant(value);
    } else {
      const float before = out(0, previous);
      for (Eigen::Index g = previous + 1; g < f; ++g)
        out(0, g) = before + (value - before) * static_cast<float>(g - previous) /
                                 static_cast<float>(f - previous);
    }
    previous = f;
  }
  if (previous >= 0) out.rightCols(n - previous - 1).setConstant(out(0, previous));
  return out;
}

void token_means(const Matrix& frames, const std::vector<int>& durations, Matrix& means,
                 std::vector<float>& mask) {
  means.setZero(1, static_cast<Eigen::Index>(durations.size()));
  mask.assign(durations.size(), 0.0f);
  Eigen::Index column = 0;
  for (std::size_t k = 0; k < durations.size(); ++k) {
    const int d = durations[k];
    if (d > 0) {
      means(0, static_cast<Eigen::Index>(k)) = frames.middleCols(column, d).mean();
      mask[k] = 1.0f;
    }
    column += d;
  }
  if (column != frames.cols())
    throw std::invalid_argument("token_means: durations sum to " + std::to_string(column) +
                                " frames, the contour has " + std::to_string(frames.cols()));
}

void tokens_to_frames(const Matrix& token_values, const std::vector<int>& durations,
                      Matrix& frames) {
  // Centres (in frames) and values of the tokens that have frames.
  std::vector<double> centre, value;
  double start = 0.0;
  for (std::size_t k = 0; k < durations.size(); ++k) {
    if (durations[k] > 0) {
      centre.push_back(start + 0.5 * durations[k] - 0.5);
      value.push_back(token_values(0, static_cast<Eigen::Index>(k)));
    }
    start += durations[k];
  }
  const auto count = static_cast<Eigen::Index>(start);
  frames.resize(1, count);
  if (centre.empty()) return;
  std::size_t next = 0;  // the first centre at or after the frame
  for (Eigen::Index f = 0; f < count; ++f) {
    const double t = static_cast<double>(f);
    while (next < centre.size() && centre[next] < t) ++next;
    if (next == 0) {
      frames(0, f) = static_cast<float>(value.front());
    } else if (next == centre.size()) {
      frames(0, f) = static_cast<float>(value.back());
    } else {
      const double w = (t - centre[next - 1]) / (centre[next] - centre[next - 1]);
      frames(0, f) = static_cast<float>((1.0 - w) * value[next - 1] + w * value[next]);
    }
  }
}

Matrix spread_pitch(const Matrix& token_values, const std::vector<int>& durations, float spread) {
  Matrix out = token_values;
  if (spread == 1.0f) return out;
  double sum = 0.0;
  int count = 0;
  for (std::size_t k = 0; k < durations.size(); ++k)
    if (durations[k] > 0) sum += token_values(0, static_cast<Eigen::Index>(k)), ++count;
  if (count == 0) return out;
  const auto mean = static_cast<float>(sum / count);
  for (std::size_t k = 0; k < durations.size(); ++k)
    if (durations[k] > 0) {
      const auto i = static_cast<Eigen::Index>(k);
      out(0, i) = mean + spread * (token_values(0, i) - mean);
    }
  return out;
}

void bucket_coordinates(const Matrix& values, float low, float high, int bins,
                        std::vector<int32_t>& index, std::vector<float>& weight) {
  const Eigen::Index n = values.size();
  index.resize(static_cast<std::size_t>(n));
  weight.resize(static_cast<std::size_t>(n));
  const double scale = static_cast<double>(bins - 1) / (static_cast<double>(high) - low);
  for (Eigen::Index i = 0; i < n; ++i) {
    double u = (static_cast<double>(values.data()[i]) - low) * scale;
    if (!(u > 0.0)) u = 0.0;  // also NaN
    u = std::min(u, static_cast<double>(bins - 1));
    auto below = static_cast<int32_t>(std::floor(u));
    if (below >= bins - 1) below = bins - 2;
    index[static_cast<std::size_t>(i)] = below;
    weight[static_cast<std::size_t>(i)] = static_cast<float>(u - below);
  }
}

double masked_mse(kernels::ConstMatrixRef predicted, const Matrix& target,
                  const std::vector<float>& mask, Matrix& d_predicted, float scale,
                  double normaliser) {
  d_predicted.setZero(predicted.rows(), predicted.cols());
  double own = 0.0;
  for (float m : mask) own += m;
  if (own == 0.0) return 0.0;
  const double count = normaliser > 0.0 ? normaliser : own;
  double sum = 0.0;
  for (Eigen::Index k = 0; k < predicted.cols(); ++k) {
    const float m = mask[static_cast<std::size_t>(k)];
    if (m == 0.0f) continue;
    const double e = static_cast<double>(predicted(0, k)) - target(0, k);
    sum += e * e;
    d_predicted(0, k) = static_cast<float>(2.0 * e * scale / count);
  }
  return sum / count;
}

}  // namespace tts::acoustic
