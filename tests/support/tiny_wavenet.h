// Shared helpers for vocoder tests: a tiny config and a random batch of real shape.
#pragma once

#include <random>

#include "tts/vocoder/batch.h"
#include "tts/vocoder/config.h"

namespace tts::testing {

inline vocoder::WaveNetConfig tiny_config() {
  vocoder::WaveNetConfig c;
  c.layers = 4;
  c.dilation_cycle = 2;  // dilations 1 2 1 2
  c.residual_channels = 3;
  c.skip_channels = 5;
  c.classes = 7;
  c.mel_channels = 2;
  c.hop_length = 4;
  c.sample_rate = 16000;
  return c;
}

// `segments` crops of `length` samples with random classes and random mel frames; each crop has
// its own frames, positioned as in an utterance starting at the crop's first sample.
inline vocoder::Batch random_batch(const vocoder::WaveNetConfig& c, int segments, int length,
                                   uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> cls(0, c.classes - 1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  vocoder::Batch b;
  b.segments = segments;
  b.length = length;
  const int frames = length / c.hop_length + 2;
  b.mel.resize(c.mel_channels, segments * frames);
  for (Eigen::Index k = 0; k < b.mel.size(); ++k) b.mel.data()[k] = normal(rng);
  for (int s = 0; s < segments; ++s) {
    for (int t = 0; t < length; ++t) {
      b.inputs.push_back(cls(rng));
      b.targets.push_back(cls(rng));
      int32_t index;
      float weight;
      vocoder::frame_position(t, c.hop_length, s * frames, index, weight);
      b.frame_index.push_back(index);
      b.frame_weight.push_back(weight);
    }
  }
  return b;
}

}  // namespace tts::testing
