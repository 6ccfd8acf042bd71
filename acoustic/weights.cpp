#include "tts/acoustic/weights.h"

#include <cmath>
#include <random>
#include <utility>

namespace tts::acoustic {

namespace {

ConvBlockLayout add_block(kernels::ParameterSet& p, const std::string& prefix, int in, int out,
                          int kernel, bool residual) {
  ConvBlockLayout b;
  b.conv = p.add(prefix + "conv", out, kernel * in);
  b.conv_bias = p.add(prefix + "conv_bias", out);
  b.norm_scale = p.add(prefix + "norm_scale", out);
  b.norm_bias = p.add(prefix + "norm_bias", out);
  b.kernel = kernel;
  b.residual = residual && in == out;
  return b;
}

LinearLayout add_linear(kernels::ParameterSet& p, const std::string& name, int in, int out) {
  return {p.add(name, out, in), p.add(name + "_bias", out)};
}

}  // namespace

AcousticWeights::AcousticWeights(const AcousticConfig& config) : config_(config) {
  config_.validate();
  const int C = config.channels, H = config.duration_channels, D = config.decoder_channels;
  const int M = config.n_mels;
  auto& p = parameters_;
  layout_.embedding = p.add("embedding", C, config.symbols);
  for (int i = 0; i < config.encoder_blocks; ++i)
    layout_.encoder.push_back(
        add_block(p, "encoder." + std::to_string(i) + ".", C, C, config.encoder_kernel, true));
  layout_.duration.push_back(add_block(p, "duration.0.", C, H, config.duration_kernel, false));
  layout_.duration.push_back(add_block(p, "duration.1.", H, H, config.duration_kernel, false));
  layout_.duration_output = add_linear(p, "duration.output", H, 1);
  const int S = config.alignment_states;
  const int prior_weight = p.add("prior.weight", M * S, C), prior_bias = p.add("prior.bias", M * S);
  layout_.prior = {prior_weight, prior_bias};
  layout_.decoder_input = add_linear(p, "decoder.input", C + 2, D);
  for (int i = 0; i < config.decoder_blocks; ++i)
    layout_.decoder.push_back(
        add_block(p, "decoder." + std::to_string(i) + ".", D, D, config.decoder_kernel, true));
  layout_.decoder_output = add_linear(p, "decoder.output", D, M);
  layout_.has_variance = config.pitch_energy;
  if (config.pitch_energy) {
    const int V = config.variance_channels, K = config.variance_kernel;
    for (auto [name, v] :
         {std::pair{"pitch", &layout_.pitch}, std::pair{"energy", &layout_.energy}}) {
      const std::string prefix(name);
      v->blocks.push_back(add_block(p, prefix + ".0.", C, V, K, false));
      v->blocks.push_back(add_block(p, prefix + ".1.", V, V, K, false));
      v->output = add_linear(p, prefix + ".output", V, 1);
      v->embedding = p.add(prefix + ".embedding", D, config.variance_bins);
    }
  }
  if (config.speakers > 1)
    layout_.speaker_embedding = p.add("speaker.embedding", C, config.speakers);
}

void AcousticWeights::initialise(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto fill = [&](int index, double fan_in, double gain) {
    parameters_.fill_normal(index, static_cast<float>(gain / std::sqrt(fan_in)), rng);
  };
  parameters_.set_zero();
  fill(layout_.embedding, 1.0, 1.0);
  auto fill_blocks = [&](const std::vector<ConvBlockLayout>& blocks) {
    for (const auto& b : blocks) {
      const auto& entry = parameters_.entries()[b.conv];
      fill(b.conv, static_cast<double>(entry.cols), std::sqrt(2.0));  // He, for the ReLU
      parameters_.vector(b.norm_scale).setOnes();
    }
  };
  fill_blocks(layout_.encoder);
  fill_blocks(layout_.duration);
  fill_blocks(layout_.decoder);
  auto fill_linear = [&](const LinearLayout& l) {
    fill(l.weight, static_cast<double>(parameters_.entries()[l.weight].cols), 1.0);
  };
  fill_linear(layout_.duration_output);
  // Durations start near e^1.5 ≈ 4.5 frames, a typical phoneme at a 12.5 ms hop.
  parameters_.vector(layout_.duration_output.bias).setConstant(1.5f);
  fill_linear(layout_.prior);
  fill_linear(layout_.decoder_input);
  fill_linear(layout_.decoder_output);
  if (layout_.has_variance) {
    // The embeddings start at zero, so a model whose other weights come from one trained without
    // them (--init-from a version 2 model) starts out speaking exactly as that one did.
    for (const VarianceLayout* v : {&layout_.pitch, &layout_.energy}) {
      fill_blocks(v->blocks);
      fill_linear(v->output);
    }
  }
  // The speaker embedding starts at zero too (set_zero above): a model started from a one-speaker
  // model speaks as that one did for every speaker until training tells them apart.
}

bool layer_contains(const std::string& layer, const std::string& tensor) {
  if (tensor.compare(0, layer.size(), layer) != 0) return false;
  return tensor.size() == layer.size() || tensor[layer.size()] == '.' ||
         tensor[layer.size()] == '_';
}

bool layer_names_a_tensor(const std::string& layer, const kernels::ParameterSet& parameters) {
  for (const auto& entry : parameters.entries())
    if (layer_contains(layer, entry.name)) return true;
  return false;
}

}  // namespace tts::acoustic
