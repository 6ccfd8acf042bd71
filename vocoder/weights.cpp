#include "tts/vocoder/weights.h"

#include <cmath>
#include <random>
#include <string>

namespace tts::vocoder {

WaveNetWeights::WaveNetWeights(const WaveNetConfig& config) : config_(config) {
  config_.validate();
  const int R = config.residual_channels, S = config.skip_channels, A = config.classes;
  const int M = config.mel_channels, L = config.layers;
  auto& p = parameters_;
  layout_.embedding = p.add("embedding", R, A);
  layout_.conditioning = p.add("conditioning", L * 2 * R, M);
  layout_.dilated_bias = p.add("dilated_bias", L * 2 * R);
  for (int i = 0; i < L; ++i) {
    const std::string prefix = "layers." + std::to_string(i) + ".";
    layout_.dilated.push_back(p.add(prefix + "dilated", 2 * R, 2 * R));
    if (i + 1 < L) {
      layout_.residual.push_back(p.add(prefix + "residual", R, R));
      layout_.residual_bias.push_back(p.add(prefix + "residual_bias", R));
    }
  }
  layout_.skip = p.add("skip", S, L * R);
  layout_.skip_bias = p.add("skip_bias", S);
  layout_.head_hidden = p.add("head.hidden", S, S);
  layout_.head_hidden_bias = p.add("head.hidden_bias", S);
  layout_.head_output = p.add("head.output", A, S);
  layout_.head_output_bias = p.add("head.output_bias", A);
}

void WaveNetWeights::initialise(uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Normal(0, gain²/fan_in) per matrix keeps activations of unit scale through the stack; biases
  // start at zero. Residual and skip projections are damped so a deep stack starts near identity.
  auto fill = [&](int index, double fan_in, double gain) {
    parameters_.fill_normal(index, static_cast<float>(gain / std::sqrt(fan_in)), rng);
  };
  parameters_.set_zero();
  const double R = config_.residual_channels, S = config_.skip_channels;
  fill(layout_.embedding, 1.0, 1.0);
  fill(layout_.conditioning, config_.mel_channels, 0.3);
  for (int index : layout_.dilated) fill(index, 2 * R, 1.0);
  for (int index : layout_.residual) fill(index, R, 0.5);
  fill(layout_.skip, R * config_.layers, 1.0);
  fill(layout_.head_hidden, S, 1.0);
  fill(layout_.head_output, S, 1.0);
}

}  // namespace tts::vocoder
