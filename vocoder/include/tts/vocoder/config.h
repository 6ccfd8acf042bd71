// Hyper-parameters of the WaveNet vocoder, read from and written to JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tts::vocoder {

struct WaveNetConfig {
  int layers = 20;             // dilated layers in total
  int dilation_cycle = 10;     // dilations 1, 2, 4, ... 2^(cycle-1), repeated
  int residual_channels = 64;  // R; the gate has 2R channels
  int skip_channels = 256;     // S
  int classes = 256;           // μ-law classes (A)
  int mel_channels = 80;       // conditioning channels
  int hop_length = 200;        // samples per mel frame (the conditioning upsampler's factor)
  int sample_rate = 16000;
  // α of the pre-emphasis applied before μ-law (0 = none); see sample_codec.h.
  float preemphasis = 0.0f;

  // Dilation of each layer.
  std::vector<int> dilations() const;
  // Samples of history that one output sample depends on (input conv + dilated stack).
  int receptive_field() const;
  // Multiply-add FLOPs per generated sample in incremental mode, without conditioning:
  // L·(10R² + 2RS) + 2S² + 2SA, following DESIGN.md (input embedding lookup is free).
  double flops_per_sample() const;
  // Conditioning FLOPs per sample: the 2R×M projection per layer, amortised over a hop.
  double conditioning_flops_per_sample() const;

  // Throws std::invalid_argument naming the field when a value is out of range.
  void validate() const;
};

void to_json(nlohmann::json& j, const WaveNetConfig& c);
// Missing fields keep their defaults; unknown fields are rejected so typos do not go unnoticed.
void from_json(const nlohmann::json& j, WaveNetConfig& c);

}  // namespace tts::vocoder
