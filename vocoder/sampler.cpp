#include "tts/vocoder/sampler.h"

#include <stdexcept>
#include <string>

#include "tts/kernels/activations.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/mulaw.h"
#include "tts/kernels/softmax.h"
#include "tts/vocoder/batch.h"

namespace tts::vocoder {

using kernels::Transpose;

WaveNetSampler::WaveNetSampler(const WaveNetWeights& weights, const SamplerOptions& options)
    : weights_(weights), options_(options), rng_(options.seed) {
  const WaveNetConfig& c = weights.config();
  const int R = c.residual_channels;
  dilations_ = c.dilations();
  for (int d : dilations_) queues_.emplace_back(kernels::Matrix::Zero(R, d));
  h_.resize(R);
  dilated_in_.resize(2 * R);
  z_.resize(2 * R);
  gated_all_.resize(c.layers * R);
  skip_.resize(c.skip_channels);
  hidden_.resize(c.skip_channels);
  logits_.resize(c.classes);
  scratch_.resize(c.classes);
}

void WaveNetSampler::start(const kernels::Matrix& mel) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  if (mel.rows() != c.mel_channels)
    throw std::invalid_argument("vocoder: mel has " + std::to_string(mel.rows()) +
                                " channels, the model expects " + std::to_string(c.mel_channels));
  if (mel.cols() < 2) throw std::invalid_argument("vocoder: need at least 2 mel frames");
  conditioning_.resize(c.layers * 2 * c.residual_channels, mel.cols());
  kernels::gemm(conditioning_, weights_.parameters().matrix(lay.conditioning), Transpose::kNo, mel,
                Transpose::kNo);
  kernels::add_bias(conditioning_, weights_.parameters().vector(lay.dilated_bias));
  for (auto& q : queues_) q.setZero();
  position_ = 0;
  total_ = static_cast<std::size_t>(mel.cols() - 1) * c.hop_length;
  previous_class_ = kernels::mulaw_encode(0.0f, c.classes);  // silence before the first sample
}

std::size_t WaveNetSampler::generate(int32_t* out, std::size_t max, const float* uniforms,
                                     kernels::Matrix* logits_out) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::size_t made = 0;
  while (made < max && position_ < total_) {
    const float u = uniforms ? uniforms[made] : uniform(rng_);
    float* logits = logits_out ? logits_out->col(static_cast<Eigen::Index>(position_)).data()
                               : nullptr;
    out[made++] = step(u, logits);
  }
  return made;
}

int32_t WaveNetSampler::step(float uniform, float* logits_out) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& p = weights_.parameters();
  const int R = c.residual_channels, L = c.layers;

  int32_t frame;
  float weight;
  frame_position(static_cast<int64_t>(position_), c.hop_length, 0, frame, weight);

  h_ = p.matrix(lay.embedding).col(previous_class_);
  for (int i = 0; i < L; ++i) {
    // The ring slot for this step holds the input from `dilation` steps ago; replace it with now.
    auto slot = queues_[i].col(static_cast<Eigen::Index>(position_ % dilations_[i]));
    dilated_in_.head(R) = slot;
    slot = h_;
    dilated_in_.tail(R) = h_;
    kernels::gemv(z_, p.matrix(lay.dilated[i]), dilated_in_);
    auto cond = conditioning_.middleRows(i * 2 * R, 2 * R);
    if (weight == 0.0f) z_ += cond.col(frame);
    else z_ += (1.0f - weight) * cond.col(frame) + weight * cond.col(frame + 1);
    auto gated = gated_all_.segment(i * R, R);
    kernels::gate_forward_step(z_, gated);
    if (i + 1 < L) {
      kernels::gemv(h_, p.matrix(lay.residual[i]), gated, /*accumulate=*/true);
      h_ += p.vector(lay.residual_bias[i]);
    }
  }
  // Skip connections of all layers in one product, then the output head.
  kernels::gemv(skip_, p.matrix(lay.skip), gated_all_);
  skip_ = (skip_ + p.vector(lay.skip_bias)).cwiseMax(0.0f);
  kernels::gemv(hidden_, p.matrix(lay.head_hidden), skip_);
  hidden_ = (hidden_ + p.vector(lay.head_hidden_bias)).cwiseMax(0.0f);
  kernels::gemv(logits_, p.matrix(lay.head_output), hidden_);
  logits_ += p.vector(lay.head_output_bias);
  if (logits_out) Eigen::Map<kernels::Vector>(logits_out, c.classes) = logits_;

  previous_class_ = kernels::softmax_sample(logits_, options_.temperature, uniform, scratch_);
  ++position_;
  return previous_class_;
}

std::size_t WaveNetSampler::state_bytes() const {
  std::size_t floats = 0;
  for (const auto& q : queues_) floats += q.size();
  floats += h_.size() + dilated_in_.size() + z_.size() + gated_all_.size() + skip_.size() +
            hidden_.size() + logits_.size() + scratch_.size() + conditioning_.size();
  return floats * sizeof(float);
}

}  // namespace tts::vocoder
