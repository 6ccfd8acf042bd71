#include "tts/vocoder/sampler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tts/kernels/activations.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/mulaw.h"
#include "tts/kernels/softmax.h"
#include "tts/vocoder/batch.h"
#include "worker_team.h"

namespace tts::vocoder {

using kernels::Transpose;

namespace {
// [begin, begin + count) of `total` rows for thread t of n. Shares are whole 16-row blocks, so every
// row goes through the same GEMV code path whatever the thread count and the audio does not depend
// on it; a dimension that is not a multiple of 16 (tiny test models) is left to thread 0.
void split(Eigen::Index total, int t, int n, Eigen::Index& begin, Eigen::Index& count) {
  if (total % 16 != 0) {
    begin = 0;
    count = t == 0 ? total : 0;
    return;
  }
  const Eigen::Index blocks = total / 16;
  begin = blocks * t / n * 16;
  count = blocks * (t + 1) / n * 16 - begin;
}
}  // namespace

WaveNetSampler::WaveNetSampler(const WaveNetWeights& weights, const SamplerOptions& options)
    : weights_(weights), options_(options), rng_(options.seed) {
  const WaveNetConfig& c = weights.config();
  const int R = c.residual_channels;
  const int threads = std::max(1, std::min(options.threads, R));
  dilations_ = c.dilations();
  for (int d : dilations_) queues_.emplace_back(kernels::Matrix::Zero(R, d));
  for (int t = 0; t < threads; ++t) {
    Share s;
    split(R, t, threads, s.channel_begin, s.channels);
    split(c.skip_channels, t, threads, s.skip_begin, s.skips);
    split(c.classes, t, threads, s.class_begin, s.classes);
    shares_.push_back(s);
    scratch_.emplace_back(c.classes);
  }
  sampled_.assign(threads, 0);
  team_ = std::make_unique<WorkerTeam>(threads);
  h_.resize(R);
  z_.resize(2 * R);
  gated_all_.resize(c.layers * R);
  skip_.resize(c.skip_channels);
  hidden_.resize(c.skip_channels);
  logits_.resize(c.classes);
}

WaveNetSampler::~WaveNetSampler() = default;

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
  sampled_.assign(sampled_.size(), kernels::mulaw_encode(0.0f, c.classes));  // silence before t=0
}

std::size_t WaveNetSampler::generate(int32_t* out, std::size_t max, const float* uniforms,
                                     kernels::Matrix* logits_out) {
  const std::size_t count = std::min(max, total_ - position_);
  if (count == 0) return 0;
  // The uniform numbers are drawn up front, so every thread of the team reads the same ones.
  uniforms_.resize(count);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (std::size_t i = 0; i < count; ++i) uniforms_[i] = uniforms ? uniforms[i] : uniform(rng_);
  const std::size_t first = position_;
  team_->run([&](int t) {
    for (std::size_t i = 0; i < count; ++i) {
      float* logits = logits_out && t == 0
                          ? logits_out->col(static_cast<Eigen::Index>(first + i)).data()
                          : nullptr;
      step(t, first + i, uniforms_[i], logits);
      if (t == 0) out[i] = sampled_[0];
    }
  });
  position_ = first + count;
  return count;
}

void WaveNetSampler::step(int t, std::size_t position, float uniform, float* logits_out) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& p = weights_.parameters();
  const Eigen::Index R = c.residual_channels;
  const int L = c.layers;
  const Share& my = shares_[t];
  const Eigen::Index c0 = my.channel_begin, cn = my.channels;

  int32_t frame;
  float weight;
  frame_position(static_cast<int64_t>(position), c.hop_length, 0, frame, weight);

  // Layer 0 reads the embedding column directly, so no thread has to publish it first.
  const auto embedding = p.matrix(lay.embedding).col(sampled_[t]);
  for (int i = 0; i < L; ++i) {
    const float* input = i == 0 ? embedding.data() : h_.data();
    const kernels::ConstVectorRef now(Eigen::Map<const kernels::Vector>(input, R));
    auto slot = queues_[i].col(static_cast<Eigen::Index>(position % dilations_[i]));
    const auto dilated = p.matrix(lay.dilated[i]);
    const auto cond = conditioning_.middleRows(i * 2 * R, 2 * R);
    // This thread's filter rows [c0, c0+cn) and the matching gate rows R + [c0, c0+cn).
    for (const Eigen::Index r0 : {c0, R + c0}) {
      auto z = z_.segment(r0, cn);
      kernels::gemv(z, dilated.block(r0, 0, cn, R), slot);  // the input `dilation` steps ago
      kernels::gemv(z, dilated.block(r0, R, cn, R), now, /*accumulate=*/true);
      if (weight == 0.0f) z += cond.col(frame).segment(r0, cn);
      else z += (1.0f - weight) * cond.col(frame).segment(r0, cn) +
                weight * cond.col(frame + 1).segment(r0, cn);
    }
    auto gated = gated_all_.segment(i * R + c0, cn);
    kernels::gate_forward_step(z_.segment(c0, cn), z_.segment(R + c0, cn), gated);
    team_->barrier();  // every row of this layer's gate output is ready; nobody reads the slot now
    slot.segment(c0, cn) = now.segment(c0, cn);
    if (i + 1 < L) {
      auto h = h_.segment(c0, cn);
      if (i == 0) h = now.segment(c0, cn);
      kernels::gemv(h, p.matrix(lay.residual[i]).middleRows(c0, cn),
                    gated_all_.segment(i * R, R), /*accumulate=*/true);
      h += p.vector(lay.residual_bias[i]).segment(c0, cn);
      team_->barrier();  // the next layer's input is complete
    }
  }
  // Skip connections of all layers in one product, then the output head, each split by rows.
  auto skip = skip_.segment(my.skip_begin, my.skips);
  kernels::gemv(skip, p.matrix(lay.skip).middleRows(my.skip_begin, my.skips), gated_all_);
  skip = (skip + p.vector(lay.skip_bias).segment(my.skip_begin, my.skips)).cwiseMax(0.0f);
  team_->barrier();
  auto hidden = hidden_.segment(my.skip_begin, my.skips);
  kernels::gemv(hidden, p.matrix(lay.head_hidden).middleRows(my.skip_begin, my.skips), skip_);
  hidden = (hidden + p.vector(lay.head_hidden_bias).segment(my.skip_begin, my.skips))
               .cwiseMax(0.0f);
  team_->barrier();
  auto logits = logits_.segment(my.class_begin, my.classes);
  kernels::gemv(logits, p.matrix(lay.head_output).middleRows(my.class_begin, my.classes), hidden_);
  logits += p.vector(lay.head_output_bias).segment(my.class_begin, my.classes);
  team_->barrier();
  if (logits_out) Eigen::Map<kernels::Vector>(logits_out, c.classes) = logits_;
  sampled_[t] = kernels::softmax_sample(logits_, options_.temperature, uniform, scratch_[t]);
}

std::size_t WaveNetSampler::state_bytes() const {
  std::size_t floats = 0;
  for (const auto& q : queues_) floats += q.size();
  for (const auto& s : scratch_) floats += s.size();
  floats += h_.size() + z_.size() + gated_all_.size() + skip_.size() + hidden_.size() +
            logits_.size();
  return floats * sizeof(float);
}

}  // namespace tts::vocoder
