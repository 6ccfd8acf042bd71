// Shared helpers for acoustic-model tests: a tiny config and a random packed batch.
#pragma once

#include <random>

#include "tts/acoustic/network.h"

namespace tts::testing {

inline acoustic::AcousticConfig tiny_acoustic_config() {
  acoustic::AcousticConfig c;
  c.symbols = 7;
  c.channels = 4;
  c.encoder_blocks = 2;
  c.encoder_kernel = 3;
  c.duration_channels = 3;
  c.duration_kernel = 3;
  c.decoder_channels = 5;
  c.decoder_blocks = 2;
  c.decoder_kernel = 3;
  c.n_mels = 3;
  c.mel_mean = -2.0f;
  c.mel_std = 1.5f;
  c.alignment_states = 1;  // tests of more states set it themselves
  c.variance_channels = 5;
  c.variance_bins = 6;
  c.pitch_mean = 5.3f;
  c.pitch_std = 0.25f;
  c.energy_mean = -1.0f;
  c.energy_std = 2.0f;
  return c;
}

// Utterances with the given token counts; each gets random ids, random durations of
// 1..max_frames frames per token and random frames.
inline acoustic::AcousticBatch random_acoustic_batch(const acoustic::AcousticConfig& c,
                                                     const std::vector<int>& token_counts,
                                                     uint64_t seed, std::vector<int>& durations,
                                                     int max_frames = 3) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> id(0, c.symbols - 1);
  std::uniform_int_distribution<int> duration(1, max_frames);
  std::normal_distribution<float> normal(-2.0f, 1.5f);
  acoustic::AcousticBatch b;
  durations.clear();
  for (int tokens : token_counts) {
    int frames = 0;
    for (int t = 0; t < tokens; ++t) {
      b.ids.push_back(id(rng));
      durations.push_back(duration(rng));
      frames += durations.back();
    }
    b.token_lengths.push_back(tokens);
    b.frame_lengths.push_back(frames);
  }
  int total = 0;
  for (int f : b.frame_lengths) total += f;
  b.mel.resize(c.n_mels, total);
  for (Eigen::Index k = 0; k < b.mel.size(); ++k) b.mel.data()[k] = normal(rng);
  // Contours spread over the embeddings' buckets: log F0 around 200 Hz, log energy around -1.
  std::normal_distribution<float> pitch(5.3f, 0.4f), energy(-1.0f, 3.0f);
  b.log_f0.resize(1, total);
  b.log_energy.resize(1, total);
  for (Eigen::Index f = 0; f < total; ++f) {
    b.log_f0(0, f) = pitch(rng);
    b.log_energy(0, f) = energy(rng);
  }
  return b;
}

}  // namespace tts::testing
