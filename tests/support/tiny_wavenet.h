// Shared helpers for vocoder tests: a tiny config and a random batch of real shape.
#pragma once

#include <random>
#include <vector>

#include "tts/kernels/mulaw.h"
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

// One utterance of the classes a sampler drew over `mel`, as the teacher-forced pass reads it: each
// sample's input is the class before it (silence first), its target the class itself, its frame
// the one the sampler conditioned it on. Its logits must be the sampler's.
inline vocoder::Batch sampled_batch(const vocoder::WaveNetConfig& c,
                                    const std::vector<int32_t>& classes,
                                    const kernels::Matrix& mel) {
  vocoder::Batch b;
  b.segments = 1;
  b.length = static_cast<int>(classes.size());
  b.mel = mel;
  for (std::size_t t = 0; t < classes.size(); ++t) {
    b.inputs.push_back(t == 0 ? kernels::mulaw_encode(0.0f, c.classes) : classes[t - 1]);
    b.targets.push_back(classes[t]);
    int32_t index;
    float weight;
    vocoder::frame_position(static_cast<int64_t>(t), c.hop_length, 0, index, weight);
    b.frame_index.push_back(index);
    b.frame_weight.push_back(weight);
  }
  return b;
}

}  // namespace tts::testing
