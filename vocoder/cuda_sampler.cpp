#include "tts/vocoder/cuda_sampler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tts/kernels/cuda_library.h"
#include "tts/kernels/mulaw.h"

namespace tts::vocoder {

namespace {

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

std::shared_ptr<const kernels::SamplingModel> upload_for_cuda_sampling(
    const WaveNetWeights& weights) {
  return kernels::cuda_library().upload_sampling_model(sampling_weights(weights));
}

CudaWaveNetSampler::CudaWaveNetSampler(const WaveNetWeights& weights, int streams,
                                       const SamplerOptions& options, int streams_per_block,
                                       std::shared_ptr<const kernels::SamplingModel> uploaded)
    : weights_(weights), options_(options) {
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
  const kernels::Matrix conditioning = project_conditioning(weights_, mel);
  const std::size_t total = static_cast<std::size_t>(mel.cols() - 1) * c.hop_length;
  batch_->start(stream, conditioning.data(), static_cast<int>(conditioning.cols()), total,
                kernels::mulaw_encode(0.0f, c.classes));  // silence before the first sample
  totals_.at(stream) = total;
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

std::size_t CudaWaveNetSampler::generate(int32_t* out, std::size_t max, const float* uniforms,
                                         kernels::Matrix* logits_out) {
  if (streams() != 1)
    throw std::invalid_argument(
        "CudaWaveNetSampler::generate is for one stream; this sampler has " +
        std::to_string(streams()) + " (use generate_all)");
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
