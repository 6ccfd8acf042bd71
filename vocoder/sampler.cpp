#include "tts/vocoder/sampler.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include "tts/kernels/activations.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/mulaw.h"
#include "tts/kernels/softmax.h"
#include "tts/vocoder/batch.h"
#include "tts/vocoder/conditioning.h"
#include "two_stage_chooser.h"
#include "worker_team.h"

namespace tts::vocoder {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void check_stream(int stream) {
  if (stream != 0)
    throw std::out_of_range("WaveNetSampler: stream " + std::to_string(stream) +
                            " (a CPU sampler has one stream, 0)");
}
}  // namespace

WaveNetSampler::WaveNetSampler(const WaveNetWeights& weights, const SamplerOptions& options,
                               std::shared_ptr<const CompactSamplingWeights> compact)
    : weights_(weights), compact_(std::move(compact)), options_(options), rng_(options.seed) {
  const WaveNetConfig& c = weights.config();
  const int R = c.residual_channels;
  options_.threads = std::clamp(options.threads, 1, 2);
  if (compact_ &&
      (compact_->dilated_past.size() != static_cast<std::size_t>(c.layers) ||
       compact_->head_output.rows() != c.classes || compact_->dilated_past.front().rows() != 2 * R))
    throw std::invalid_argument("WaveNetSampler: the compacted weights are of another shape");
  dilations_ = c.dilations();
  for (int i = 0; i + 1 < c.layers; ++i)
    residual_bias_.push_back(weights.parameters().vector(weights.layout().residual_bias[i]).data());
  // The past inputs are kept as the products read them: rounded for int8 weights, else in fp32.
  rounds_inputs_ = compact_ && compact_->precision == kernels::WeightPrecision::kInt8;
  if (rounds_inputs_) {
    for (int d : dilations_)
      rounded_queues_.emplace_back(static_cast<std::size_t>(d),
                                   kernels::QuantisedVector(kernels::Vector::Zero(R)));
    rounded_gated_.resize(static_cast<std::size_t>(c.layers));
  } else {
    for (int d : dilations_) queues_.emplace_back(kernels::Matrix::Zero(R, d));
  }
  team_ = std::make_unique<WorkerTeam>(options_.threads);
  chooser_ = std::make_unique<TwoStageChooser>();
  h_.resize(R);
  z_.resize(2 * R);
  gated_all_.resize(c.layers * R);
  skip_.resize(c.skip_channels);
  hidden_.resize(c.skip_channels);
  logits_.resize(c.classes);
  scratch_.resize(c.classes);
}

WaveNetSampler::~WaveNetSampler() = default;

void WaveNetSampler::start(const kernels::Matrix& mel) {
  const WaveNetConfig& c = weights_.config();
  conditioning_ = project_conditioning(weights_, mel);
  for (auto& q : queues_) q.setZero();
  const kernels::QuantisedVector silence(kernels::Vector::Zero(c.residual_channels));
  for (auto& ring : rounded_queues_) std::fill(ring.begin(), ring.end(), silence);
  position_ = 0;
  total_ = static_cast<std::size_t>(mel.cols() - 1) * c.hop_length;
  previous_class_ = kernels::mulaw_encode(0.0f, c.classes);  // silence before the first sample
}

void WaveNetSampler::start(int stream, const kernels::Matrix& mel, uint64_t seed) {
  check_stream(stream);
  reseed(seed);
  start(mel);
}

void WaveNetSampler::extend(int stream, const kernels::Matrix& more) {
  check_stream(stream);
  if (more.cols() < 1) throw std::invalid_argument("vocoder: no mel frames to add");
  const kernels::Matrix projected = project_conditioning_frames(weights_, more);
  const Eigen::Index had = conditioning_.cols();
  conditioning_.conservativeResize(Eigen::NoChange, had + more.cols());
  conditioning_.rightCols(more.cols()) = projected;
  total_ += static_cast<std::size_t>(more.cols()) * weights_.config().hop_length;
}

std::vector<std::size_t> WaveNetSampler::generate(const std::vector<std::size_t>& want,
                                                  std::size_t stride, int32_t* out) {
  if (want.size() != 1)
    throw std::invalid_argument("WaveNetSampler::generate: " + std::to_string(want.size()) +
                                " counts for a sampler of one stream");
  return {generate(out, std::min(want[0], stride))};
}

std::size_t WaveNetSampler::total_samples(int stream) const {
  check_stream(stream);
  return total_;
}

std::size_t WaveNetSampler::remaining(int stream) const {
  check_stream(stream);
  return total_ - position_;
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
  const int L = weights_.config().layers;
  auto logits_column = [&](std::size_t i) {
    return logits_out ? logits_out->col(static_cast<Eigen::Index>(first + i)).data() : nullptr;
  };
  auto one_thread = [&] {
    for (std::size_t i = 0; i < count; ++i) {
      run_layers(first + i, /*skip_inline=*/true, 0);
      run_head(uniforms_[i], logits_column(i));
      out[i] = previous_class_;
    }
  };
  const bool two_stages = options_.threads == 2 && chooser_->use_two_stages(count);
  if (!two_stages) {
    const auto started = std::chrono::steady_clock::now();
    one_thread();
    if (options_.threads == 2) chooser_->record(false, count, seconds_since(started));
    position_ = first + count;
    return count;
  }
  const auto started = std::chrono::steady_clock::now();
  layers_published_.store(0, std::memory_order_relaxed);
  samples_published_.store(0, std::memory_order_relaxed);
  team_->run([&](int thread) {
    if (thread == 0) {  // stage A: layers, as soon as the previous class is known
      for (std::size_t i = 0; i < count; ++i) {
        WorkerTeam::wait_until(samples_published_, static_cast<long>(i));
        run_layers(first + i, /*skip_inline=*/false, static_cast<long>(i) * L);
      }
    } else {  // stage B: skip projections layer by layer, then the head
      for (std::size_t i = 0; i < count; ++i) {
        for (int layer = 0; layer < L; ++layer) {
          WorkerTeam::wait_until(layers_published_, static_cast<long>(i) * L + layer + 1);
          accumulate_skip(layer);
        }
        run_head(uniforms_[i], logits_column(i));
        out[i] = previous_class_;
        samples_published_.store(static_cast<long>(i) + 1, std::memory_order_release);
      }
    }
  });
  chooser_->record(true, count, seconds_since(started));
  position_ = first + count;
  return count;
}

void WaveNetSampler::run_layers(std::size_t position, bool skip_inline, long published_base) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& p = weights_.parameters();
  const Eigen::Index R = c.residual_channels;
  const int L = c.layers;

  int32_t frame;
  float weight;
  frame_position(static_cast<int64_t>(position), c.hop_length, 0, frame, weight);

  const auto embedding = p.matrix(lay.embedding).col(previous_class_);
  for (int i = 0; i < L; ++i) {
    // Layer 0 reads the embedding column in place; later layers read the residual stream.
    const kernels::ConstVectorRef input(
        Eigen::Map<const kernels::Vector>(i == 0 ? embedding.data() : h_.data(), R));
    if (rounds_inputs_) {
      auto& past = rounded_queues_[static_cast<std::size_t>(i)]
                                  [position % static_cast<std::size_t>(dilations_[i])];
      rounded_input_.assign(input);
      kernels::CompactMatrix::gemv_sum(z_, compact_->dilated_past[i], past,
                                       compact_->dilated_now[i], rounded_input_);
      std::swap(past, rounded_input_);  // the present input, rounded, joins the ring
    } else {
      auto slot = queues_[i].col(static_cast<Eigen::Index>(position % dilations_[i]));
      if (compact_) {
        compact_->dilated_past[i].gemv(z_, slot);
        compact_->dilated_now[i].gemv(z_, input, /*accumulate=*/true);
      } else {
        const auto dilated = p.matrix(lay.dilated[i]);
        kernels::gemv(z_, dilated.leftCols(R), slot);  // the input `dilation` steps ago
        kernels::gemv(z_, dilated.rightCols(R), input, /*accumulate=*/true);
      }
      slot = input;  // the present input joins the ring (h_ changes only below)
    }
    const auto cond = conditioning_.middleRows(i * 2 * R, 2 * R);
    if (weight == 0.0f)
      z_ += cond.col(frame);
    else
      z_ += (1.0f - weight) * cond.col(frame) + weight * cond.col(frame + 1);
    auto gated = gated_all_.segment(i * R, R);
    kernels::gate_forward_step(z_.head(R), z_.tail(R), gated);
    if (rounds_inputs_) rounded_gated_[static_cast<std::size_t>(i)].assign(gated);
    if (i + 1 < L) {
      if (i == 0) h_ = input;
      if (rounds_inputs_)
        compact_->residual[i].gemv(h_, rounded_gated_[static_cast<std::size_t>(i)],
                                   /*accumulate=*/true);
      else if (compact_)
        compact_->residual[i].gemv(h_, gated, /*accumulate=*/true);
      else
        kernels::gemv(h_, p.matrix(lay.residual[i]), gated, /*accumulate=*/true);
      h_ += Eigen::Map<const kernels::Vector>(residual_bias_[static_cast<std::size_t>(i)], R);
    }
    if (skip_inline)
      accumulate_skip(i);
    else
      layers_published_.store(published_base + i + 1, std::memory_order_release);
  }
}

void WaveNetSampler::accumulate_skip(int i) {
  // Column block i of the skip matrix, added in layer order: the same sums, in the same order, as
  // one product over all layers' gate outputs.
  const Eigen::Index R = weights_.config().residual_channels;
  if (rounds_inputs_) {
    compact_->skip[static_cast<std::size_t>(i)].gemv(
        skip_, rounded_gated_[static_cast<std::size_t>(i)], /*accumulate=*/i > 0);
    return;
  }
  if (compact_) {
    compact_->skip[static_cast<std::size_t>(i)].gemv(skip_, gated_all_.segment(i * R, R),
                                                     /*accumulate=*/i > 0);
    return;
  }
  const auto skip = weights_.parameters().matrix(weights_.layout().skip);
  kernels::gemv(skip_, skip.middleCols(i * R, R), gated_all_.segment(i * R, R),
                /*accumulate=*/i > 0);
}

void WaveNetSampler::run_head(float uniform, float* logits_out) {
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& p = weights_.parameters();
  skip_ = (skip_ + p.vector(lay.skip_bias)).cwiseMax(0.0f);
  if (rounds_inputs_) {
    rounded_skip_.assign(skip_);
    compact_->head_hidden.gemv(hidden_, rounded_skip_);
  } else if (compact_)
    compact_->head_hidden.gemv(hidden_, skip_);
  else
    kernels::gemv(hidden_, p.matrix(lay.head_hidden), skip_);
  hidden_ = (hidden_ + p.vector(lay.head_hidden_bias)).cwiseMax(0.0f);
  if (rounds_inputs_) {
    rounded_hidden_.assign(hidden_);
    compact_->head_output.gemv(logits_, rounded_hidden_);
  } else if (compact_)
    compact_->head_output.gemv(logits_, hidden_);
  else
    kernels::gemv(logits_, p.matrix(lay.head_output), hidden_);
  logits_ += p.vector(lay.head_output_bias);
  if (logits_out) Eigen::Map<kernels::Vector>(logits_out, logits_.size()) = logits_;
  previous_class_ = kernels::softmax_sample(logits_, options_.temperature, uniform, scratch_);
}

std::size_t WaveNetSampler::state_bytes() const {
  std::size_t floats = 0;
  for (const auto& q : queues_) floats += q.size();
  floats += h_.size() + z_.size() + gated_all_.size() + skip_.size() + hidden_.size() +
            logits_.size() + scratch_.size();
  std::size_t rounded = 0;  // int8 weights: the rounded past inputs, a byte each and a scale
  for (const auto& ring : rounded_queues_)
    for (const auto& v : ring) rounded += static_cast<std::size_t>(v.size()) + sizeof(float);
  return floats * sizeof(float) + rounded;
}

}  // namespace tts::vocoder
