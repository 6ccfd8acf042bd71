// The learned aligner, fast: a synthetic corpus whose frames are noisy per-symbol prototypes held
// for known durations. Training the model from a flat start, then with monotonic alignment search,
// must recover the true token boundaries (the same criterion as scripts/check-aligner uses against
// flite: at least 90% within 2 frames).
#include <gtest/gtest.h>

#include <random>

#include "tts/frontend/acoustic/network.h"
#include "tts/kernels/alignment.h"
#include "tts/kernels/optimizer.h"

using namespace tts;

TEST(AcousticAligner, RecoversKnownBoundariesOfASyntheticCorpus) {
  frontend::AcousticConfig config;
  config.symbols = 8;
  config.channels = 16;
  config.encoder_blocks = 2;
  config.duration_channels = 8;
  config.decoder_channels = 8;
  config.decoder_blocks = 1;
  config.n_mels = 8;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  kernels::Matrix prototypes(config.n_mels, config.symbols);
  for (Eigen::Index k = 0; k < prototypes.size(); ++k) prototypes.data()[k] = normal(rng);
  std::uniform_int_distribution<int> symbol(0, config.symbols - 1), duration(2, 9);

  frontend::AcousticBatch batch;
  std::vector<int> truth;
  std::vector<float> frames;
  for (int u = 0; u < 8; ++u) {
    const int tokens = 10 + u;
    int total = 0;
    for (int t = 0; t < tokens; ++t) {
      int id = symbol(rng);
      while (t > 0 && id == batch.ids.back()) id = symbol(rng);  // a repeat has no boundary to find
      const int d = duration(rng);
      batch.ids.push_back(id);
      truth.push_back(d);
      for (int f = 0; f < d; ++f)
        for (int m = 0; m < config.n_mels; ++m)
          frames.push_back(prototypes(m, id) + 0.3f * normal(rng));
      total += d;
    }
    batch.token_lengths.push_back(tokens);
    batch.frame_lengths.push_back(total);
  }
  batch.mel = kernels::ConstMatrixMap(frames.data(), config.n_mels,
                                      static_cast<Eigen::Index>(frames.size()) / config.n_mels);

  frontend::AcousticWeights weights(config);
  weights.initialise(1);
  kernels::ParameterSet grads = weights.parameters().zeros_like();
  kernels::ParameterSet m = grads.zeros_like(), v = grads.zeros_like();
  kernels::AdamSettings adam;
  adam.learning_rate = 5e-3f;
  std::vector<int> flat;
  for (std::size_t u = 0; u < batch.token_lengths.size(); ++u) {
    const auto d = kernels::uniform_durations(batch.token_lengths[u], batch.frame_lengths[u]);
    flat.insert(flat.end(), d.begin(), d.end());
  }
  frontend::AcousticPass pass(weights);
  for (long step = 1; step <= 600; ++step) {
    pass.forward(batch, step <= 50 ? flat : std::vector<int>{});
    grads.set_zero();
    pass.backward(grads);
    kernels::adam_step(weights.parameters().data(), grads.data(), m.data(), v.data(), grads.size(),
                       step, adam);
  }
  const std::vector<int> learned = pass.align(batch);
  ASSERT_EQ(learned.size(), truth.size());
  int within = 0, boundaries = 0, learned_end = 0, true_end = 0;
  std::size_t token = 0;
  for (int tokens : batch.token_lengths) {
    learned_end = true_end = 0;
    for (int t = 0; t + 1 < tokens; ++t, ++token) {  // inner boundaries of each utterance
      learned_end += learned[token];
      true_end += truth[token];
      within += std::abs(learned_end - true_end) <= 2;
      ++boundaries;
    }
    ++token;
  }
  EXPECT_GE(within, 0.9 * boundaries) << within << " of " << boundaries << " within 2 frames";
}
