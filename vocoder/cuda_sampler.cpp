#include "tts/vocoder/cuda_sampler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "tts/kernels/cuda_library.h"
#include "tts/kernels/mulaw.h"
#include "tts/vocoder/conditioning.h"

namespace tts::vocoder {

namespace {

kernels::cuda::WaveNetSamplingShape shape_of(const WaveNetConfig& c) {
  return {c.layers, c.residual_channels, c.skip_channels, c.classes};
}

// Throws std::invalid_argument, naming the limit, for a vocoder the CUDA sampler cannot sample.
void require_cuda_shape(const WaveNetConfig& c) {
  const std::string refusal = kernels::cuda::wavenet_sampling_refusal(shape_of(c));
  if (!refusal.empty())
    throw std::invalid_argument(refusal + " (the CPU sampler takes any vocoder)");
}

// The residual width the kernels sample `c` at (16, 32 or 64), once its shape is checked.
int kernel_width(const WaveNetConfig& c) {
  require_cuda_shape(c);
  return kernels::cuda::wavenet_sampling_kernel_residual(c.residual_channels);
}

kernels::WaveNetSamplingWeights sampling_weights(const WaveNetWeights& weights) {
  const WaveNetConfig& c = weights.config();
  const WaveNetLayout& lay = weights.layout();
  const kernels::ParameterSet& p = weights.parameters();
  kernels::WaveNetSamplingWeights w;
  w.layers = c.layers;
  w.residual = c.residual_channels;
  w.skip = c.skip_channels;
  w.classes = c.classes;
  w.hop = c.hop_length;
  w.dilations = c.dilations();
  w.embedding = p.matrix(lay.embedding).data();
  for (int i = 0; i < c.layers; ++i) {
    w.dilated.push_back(p.matrix(lay.dilated[i]).data());
    if (i + 1 < c.layers) {
      w.residual_weight.push_back(p.matrix(lay.residual[i]).data());
      w.residual_bias.push_back(p.vector(lay.residual_bias[i]).data());
    }
  }
  w.skip_weight = p.matrix(lay.skip).data();
  w.skip_bias = p.vector(lay.skip_bias).data();
  w.head_hidden = p.matrix(lay.head_hidden).data();
  w.head_hidden_bias = p.vector(lay.head_hidden_bias).data();
  w.head_output = p.matrix(lay.head_output).data();
  w.head_output_bias = p.vector(lay.head_output_bias).data();
  return w;
}

}  // namespace

WaveNetWeights pad_for_cuda_sampling(const WaveNetWeights& weights) {
  const WaveNetConfig& c = weights.config();
  const int R = c.residual_channels, P = kernel_width(c), L = c.layers;
  WaveNetConfig padded_config = c;
  padded_config.residual_channels = P;
  WaveNetWeights padded(padded_config);  // every value zero
  const WaveNetLayout& from = weights.layout();
  const WaveNetLayout& to = padded.layout();
  const kernels::ParameterSet& a = weights.parameters();
  kernels::ParameterSet& b = padded.parameters();
  b.matrix(to.embedding).topRows(R) = a.matrix(from.embedding);
  for (int i = 0; i < L; ++i) {
    // Each layer's 2R rows are R filter rows, then R gate rows; each half keeps its first R rows
    // at the padded width, and the dilated matrix's two column blocks (past, now) likewise.
    for (int half = 0; half < 2; ++half) {
      b.matrix(to.conditioning).middleRows(i * 2 * P + half * P, R) =
          a.matrix(from.conditioning).middleRows(i * 2 * R + half * R, R);
      b.vector(to.dilated_bias).segment(i * 2 * P + half * P, R) =
          a.vector(from.dilated_bias).segment(i * 2 * R + half * R, R);
      for (int column_half = 0; column_half < 2; ++column_half)
        b.matrix(to.dilated[i]).block(half * P, column_half * P, R, R) =
            a.matrix(from.dilated[i]).block(half * R, column_half * R, R, R);
    }
    if (i + 1 < L) {
      b.matrix(to.residual[i]).topLeftCorner(R, R) = a.matrix(from.residual[i]);
      b.vector(to.residual_bias[i]).head(R) = a.vector(from.residual_bias[i]);
    }
    b.matrix(to.skip).middleCols(i * P, R) = a.matrix(from.skip).middleCols(i * R, R);
  }
  b.vector(to.skip_bias) = a.vector(from.skip_bias);
  b.matrix(to.head_hidden) = a.matrix(from.head_hidden);
  b.vector(to.head_hidden_bias) = a.vector(from.head_hidden_bias);
  b.matrix(to.head_output) = a.matrix(from.head_output);
  b.vector(to.head_output_bias) = a.vector(from.head_output_bias);
  return padded;
}

kernels::Matrix pad_conditioning_for_cuda_sampling(const WaveNetConfig& config,
                                                   const kernels::Matrix& conditioning) {
  const int R = config.residual_channels, P = kernel_width(config), L = config.layers;
  if (conditioning.rows() != static_cast<Eigen::Index>(L) * 2 * R)
    throw std::invalid_argument("conditioning has " + std::to_string(conditioning.rows()) +
                                " rows, the vocoder's layers have " + std::to_string(L * 2 * R));
  if (P == R) return conditioning;
  kernels::Matrix padded =
      kernels::Matrix::Zero(static_cast<Eigen::Index>(L) * 2 * P, conditioning.cols());
  for (int i = 0; i < L; ++i)
    for (int half = 0; half < 2; ++half)
      padded.middleRows(i * 2 * P + half * P, R) = conditioning.middleRows(i * 2 * R + half * R, R);
  return padded;
}

std::shared_ptr<const kernels::SamplingModel> upload_for_cuda_sampling(
    const WaveNetWeights& weights) {
  if (kernel_width(weights.config()) == weights.config().residual_channels)
    return kernels::cuda_library().upload_sampling_model(sampling_weights(weights));
  const WaveNetWeights padded = pad_for_cuda_sampling(weights);
  return kernels::cuda_library().upload_sampling_model(sampling_weights(padded));
}

CudaWaveNetSampler::CudaWaveNetSampler(const WaveNetWeights& weights, int streams,
                                       const SamplerOptions& options, int streams_per_block,
                                       std::shared_ptr<const kernels::SamplingModel> uploaded)
    : weights_(weights), options_(options) {
  padded_ = kernel_width(weights.config()) != weights.config().residual_channels;
  if (!uploaded) uploaded = upload_for_cuda_sampling(weights);
  batch_ =
      kernels::cuda_library().make_sampling_batch(std::move(uploaded), streams, streams_per_block);
  for (int s = 0; s < streams; ++s) rngs_.emplace_back(options.seed + static_cast<uint64_t>(s));
  totals_.assign(streams, 0);
}

CudaWaveNetSampler::~CudaWaveNetSampler() = default;

int CudaWaveNetSampler::streams() const { return batch_->streams(); }
std::size_t CudaWaveNetSampler::remaining(int stream) const { return batch_->remaining(stream); }
double CudaWaveNetSampler::last_kernel_seconds() const { return batch_->last_kernel_seconds(); }
const char* CudaWaveNetSampler::kernel_name() const { return batch_->kernel_name(); }

void CudaWaveNetSampler::start(int stream, const kernels::Matrix& mel) {
  const WaveNetConfig& c = weights_.config();
  kernels::Matrix conditioning = project_conditioning(weights_, mel);
  if (padded_) conditioning = pad_conditioning_for_cuda_sampling(c, conditioning);
  const std::size_t total = static_cast<std::size_t>(mel.cols() - 1) * c.hop_length;
  batch_->start(stream, conditioning.data(), static_cast<int>(conditioning.cols()), total,
                kernels::mulaw_encode(0.0f, c.classes));  // silence before the first sample
  totals_.at(stream) = total;
}

void CudaWaveNetSampler::start(int stream, const kernels::Matrix& mel, uint64_t seed) {
  reseed(stream, seed);
  start(stream, mel);
}

std::vector<std::size_t> CudaWaveNetSampler::generate_all(std::size_t max, int32_t* out,
                                                          const float* uniforms,
                                                          float* logits_out) {
  const int n = streams();
  if (!uniforms) {  // drawn as WaveNetSampler draws them: one per sample made, in order
    uniforms_.assign(max * n, 0.0f);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (int s = 0; s < n; ++s) {
      const std::size_t make = std::min(max, batch_->remaining(s));
      for (std::size_t i = 0; i < make; ++i) uniforms_[s * max + i] = uniform(rngs_[s]);
    }
    uniforms = uniforms_.data();
  }
  return batch_->generate(max, uniforms, out, options_.temperature, logits_out);
}

std::vector<std::size_t> CudaWaveNetSampler::generate(const std::vector<std::size_t>& want,
                                                      std::size_t stride, int32_t* out) {
  const int n = streams();
  if (want.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("CudaWaveNetSampler::generate: " + std::to_string(want.size()) +
                                " counts for " + std::to_string(n) + " streams");
  // Each stream's uniforms as WaveNetSampler draws them: one per sample it makes, in order.
  uniforms_.assign(stride * n, 0.0f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int s = 0; s < n; ++s) {
    const std::size_t make = std::min({want[s], stride, batch_->remaining(s)});
    for (std::size_t i = 0; i < make; ++i) uniforms_[s * stride + i] = uniform(rngs_[s]);
  }
  return batch_->generate(stride, uniforms_.data(), out, options_.temperature, nullptr,
                          want.data());
}

std::size_t CudaWaveNetSampler::generate(int32_t* out, std::size_t max, const float* uniforms,
                                         kernels::Matrix* logits_out) {
  if (streams() != 1)
    throw std::invalid_argument(
        "CudaWaveNetSampler::generate is for one stream; this sampler has " +
        std::to_string(streams()) + " (use the per-stream generate)");
  const std::size_t count = std::min(max, batch_->remaining(0));
  if (count == 0) return 0;
  const std::size_t first = totals_[0] - batch_->remaining(0);
  const int A = weights_.config().classes;
  if (logits_out) logits_.resize(count * A);
  const std::size_t made =
      generate_all(count, out, uniforms, logits_out ? logits_.data() : nullptr).at(0);
  if (logits_out)
    for (std::size_t i = 0; i < made; ++i)
      logits_out->col(static_cast<Eigen::Index>(first + i)) =
          Eigen::Map<const kernels::Vector>(logits_.data() + i * A, A);
  return made;
}

}  // namespace tts::vocoder
