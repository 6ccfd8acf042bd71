// The learned aligner, fast: a synthetic corpus whose frames are noisy per-symbol prototypes held
// for known durations. Training the model from a flat start, then with monotonic alignment search,
// must recover the true token boundaries (the same criterion as scripts/check-aligner uses against
// flite: at least 90% within 2 frames).
#include <gtest/gtest.h>

#include <random>

#include "tiny_acoustic.h"
#include "tts/acoustic/network.h"
#include "tts/kernels/alignment.h"
#include "tts/kernels/optimizer.h"

using namespace tts;

namespace {

// Share of inner token boundaries the aligner places within 2 frames of the truth, after training
// on 8 utterances of 10–17 tokens. With `two_part`, every symbol sounds as one prototype for the
// first half of its frames and another for the second (as a diphthong, or a stop's closure and
// burst), which a single mean per token cannot describe.
double aligner_accuracy(int alignment_states, bool two_part) {
  acoustic::AcousticConfig config;
  config.symbols = 8;
  config.channels = 16;
  config.encoder_blocks = 2;
  config.duration_channels = 8;
  config.decoder_channels = 8;
  config.decoder_blocks = 1;
  config.n_mels = 8;
  config.alignment_states = alignment_states;
  config.pitch_energy = false;  // synthetic frames with no pitch: the aligner alone is tested
  std::mt19937_64 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  kernels::Matrix first_half(config.n_mels, config.symbols),
      second_half(config.n_mels, config.symbols);
  for (Eigen::Index k = 0; k < first_half.size(); ++k) first_half.data()[k] = normal(rng);
  for (Eigen::Index k = 0; k < second_half.size(); ++k)
    second_half.data()[k] = two_part ? normal(rng) : first_half.data()[k];
  std::uniform_int_distribution<int> symbol(0, config.symbols - 1), duration(2, 9);

  acoustic::AcousticBatch batch;
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
      for (int f = 0; f < d; ++f) {
        const auto& prototype = 2 * f < d ? first_half : second_half;
        for (int m = 0; m < config.n_mels; ++m)
          frames.push_back(prototype(m, id) + 0.3f * normal(rng));
      }
      total += d;
    }
    batch.token_lengths.push_back(tokens);
    batch.frame_lengths.push_back(total);
  }
  batch.mel = kernels::ConstMatrixMap(frames.data(), config.n_mels,
                                      static_cast<Eigen::Index>(frames.size()) / config.n_mels);

  acoustic::AcousticWeights weights(config);
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
  acoustic::AcousticPass pass(weights);
  for (long step = 1; step <= 600; ++step) {
    pass.forward(batch, step <= 50 ? flat : std::vector<int>{});
    grads.set_zero();
    pass.backward(grads);
    kernels::adam_step(weights.parameters().data(), grads.data(), m.data(), v.data(), grads.size(),
                       step, adam);
  }
  const std::vector<int> learned = pass.align(batch);
  EXPECT_EQ(learned.size(), truth.size());
  int within = 0, boundaries = 0;
  std::size_t token = 0;
  for (int tokens : batch.token_lengths) {
    int learned_end = 0, true_end = 0;
    for (int t = 0; t + 1 < tokens; ++t, ++token) {  // inner boundaries of each utterance
      learned_end += learned[token];
      true_end += truth[token];
      within += std::abs(learned_end - true_end) <= 2;
      ++boundaries;
    }
    ++token;
  }
  return static_cast<double>(within) / boundaries;
}

acoustic::AcousticWeights initialised_weights(const acoustic::AcousticConfig& config) {
  acoustic::AcousticWeights w(config);
  w.initialise(3);
  return w;
}

// Settings in which every symbol sounds except `pauses`, which may pause (as BOS, EOS and the word
// boundary do).
acoustic::AcousticLossSettings settings_with_pauses(const acoustic::AcousticConfig& config,
                                                    std::initializer_list<int> pauses) {
  acoustic::AcousticLossSettings settings;
  settings.symbol_timings.assign(config.symbols, frontend::SymbolTiming::kSounds);
  for (int pause : pauses) settings.symbol_timings[pause] = frontend::SymbolTiming::kMayPause;
  return settings;
}

// Weights whose prior gives every state of symbol k the constant normalised log-mel sounds[k]
// (through a one-hot embedding: channels = symbols), as if trained on frames of that sound.
acoustic::AcousticWeights hand_set_weights(acoustic::AcousticConfig config,
                                           const std::vector<float>& sounds) {
  config.channels = config.symbols;
  acoustic::AcousticWeights w(config);
  w.initialise(1);
  auto& p = w.parameters();
  const auto& layout = w.layout();
  p.matrix(layout.embedding).setIdentity();
  p.matrix(layout.prior.weight).setZero();
  p.vector(layout.prior.bias).setZero();
  for (int id = 0; id < config.symbols; ++id)
    p.matrix(layout.prior.weight)
        .col(id)
        .setConstant((sounds.at(static_cast<std::size_t>(id)) - config.mel_mean) / config.mel_std);
  return w;
}

// One utterance of `ids` whose frame f has every mel channel at column[f].
acoustic::AcousticBatch constant_frames_batch(const acoustic::AcousticConfig& config,
                                              std::vector<int32_t> ids,
                                              const std::vector<float>& column) {
  acoustic::AcousticBatch batch;
  batch.token_lengths = {static_cast<int>(ids.size())};
  batch.ids = std::move(ids);
  batch.frame_lengths = {static_cast<int>(column.size())};
  batch.mel.resize(config.n_mels, static_cast<Eigen::Index>(column.size()));
  for (Eigen::Index f = 0; f < batch.mel.cols(); ++f)
    batch.mel.col(f).setConstant(column[static_cast<std::size_t>(f)]);
  return batch;
}

}  // namespace

TEST(AcousticAligner, RecoversKnownBoundariesOfASyntheticCorpus) {
  EXPECT_GE(aligner_accuracy(1, false), 0.9);
}

TEST(AcousticAligner, TwoPartSoundsAreAlignedWithTwoStatesPerToken) {
  const double one_state = aligner_accuracy(1, true), two_states = aligner_accuracy(2, true);
  EXPECT_GE(two_states, 0.9) << "one state per token: " << one_state;
  EXPECT_GE(two_states, one_state);
}

TEST(AcousticAlignment, PausesInsideAnUtterancePayPerFrame) {
  // Ids 0 and 6 stand for BOS and EOS, 3 for a word boundary: all three may pause. With a huge
  // penalty the boundary takes no frames; without one, random means give it some somewhere.
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  const acoustic::AcousticWeights w = initialised_weights(config);
  acoustic::AcousticLossSettings settings = settings_with_pauses(config, {0, 3, 6});
  std::vector<int> unused;
  acoustic::AcousticBatch batch =
      tts::testing::random_acoustic_batch(config, {9, 9, 9, 9}, 2, unused);
  for (std::size_t k = 0; k < batch.ids.size(); ++k)
    batch.ids[k] = k % 9 == 0 ? 0 : k % 9 == 8 ? 6 : k % 9 == 4 ? 3 : 1 + static_cast<int>(k % 2);
  auto boundary_frames = [&](float penalty) {
    settings.pause_penalty = penalty;
    acoustic::AcousticPass pass(w, settings);
    const std::vector<int> d = pass.align(batch);
    int frames = 0;
    for (std::size_t k = 0; k < d.size(); ++k) frames += batch.ids[k] == 3 ? d[k] : 0;
    return frames;
  };
  EXPECT_GT(boundary_frames(-1e3f), 0);  // a bonus instead: the boundaries grab frames
  EXPECT_EQ(boundary_frames(1e6f), 0);
}

TEST(AcousticAlignment, APauseAtPunctuationIsScoredAsTheEdgeSilenceAndCostsNothing) {
  // Symbol means set by hand through a one-hot embedding: BOS (0) and EOS (6) silence, phones 1
  // and 2 two different sounds, and the comma (5) and word boundary (3) the sound of phone 2, as
  // if trained on the speech the flat start spread over them. Frames: silence 3, phone 1 ×4,
  // phone 2 ×4, silence 6, phone 1 ×4, phone 2 ×4, silence 3.
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  const float silence = -11.0f, one = -1.0f, two = 1.0f;
  const acoustic::AcousticWeights w =
      hand_set_weights(config, {silence, one, two, two, 0.0f, two, silence});
  const std::vector<float> frames_of = {
      one,     one, one, one, two, two, two, two, silence, silence, silence, silence, silence,
      silence, one, one, one, one, two, two, two, two,     silence, silence, silence};
  auto pause_frames = [&](int pause_id) {
    acoustic::AcousticLossSettings settings;
    settings.symbol_timings.assign(config.symbols, frontend::SymbolTiming::kSounds);
    settings.symbol_timings[0] = settings.symbol_timings[6] = settings.symbol_timings[3] =
        frontend::SymbolTiming::kMayPause;
    settings.symbol_timings[5] = frontend::SymbolTiming::kClausePause;
    settings.pause_penalty = 1e6f;
    std::vector<float> column(3, silence);
    column.insert(column.end(), frames_of.begin(), frames_of.end());
    return acoustic::AcousticPass(w, settings)
        .align(constant_frames_batch(config, {0, 1, 2, pause_id, 1, 2, 6}, column));
  };
  // The comma takes the pause: its own means sound like phone 2, but it is scored as silence,
  // and punctuation pays no penalty.
  EXPECT_EQ(pause_frames(5), (std::vector<int>{3, 4, 4, 6, 4, 4, 3}));
  // A word boundary pays the (here prohibitive) penalty, so the pause goes to a phone instead.
  EXPECT_EQ(pause_frames(3)[3], 0);
}

TEST(AcousticAlignment, EveryStateOfAPhoneTakesAFrameUnlessTheUtteranceIsTooShort) {
  // Three alignment states a symbol, each symbol's states one constant sound set by hand through a
  // one-hot embedding: BOS (0) and EOS (6) silence, phone 1 one sound, phone 2 another. The frames
  // hold phone 2's sound for a single frame between two stretches of phone 1.
  acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  config.alignment_states = 3;
  const float silence = -11.0f, one = -1.0f, two = 1.0f;
  const acoustic::AcousticWeights w =
      hand_set_weights(config, {silence, one, two, 0.0f, 0.0f, 0.0f, silence});
  auto align = [&](const std::vector<float>& column, int min_phone_states) {
    acoustic::AcousticLossSettings settings = settings_with_pauses(config, {0, 6});
    settings.min_phone_states = min_phone_states;
    return acoustic::AcousticPass(w, settings)
        .align(constant_frames_batch(config, {0, 1, 2, 1, 6}, column));
  };
  std::vector<float> frames(3, silence);
  frames.insert(frames.end(), 6, one);
  frames.push_back(two);
  frames.insert(frames.end(), 6, one);
  frames.insert(frames.end(), 3, silence);
  // Only the first state required: phone 2 keeps its one frame, as it sounds.
  EXPECT_EQ(align(frames, 1), (std::vector<int>{3, 6, 1, 6, 3}));
  // Every state required (0 = all): phone 2 lasts 3 frames, taken from the phones beside it, and
  // the silent edges stay with BOS and EOS.
  const std::vector<int> all = align(frames, 0);
  EXPECT_EQ(all[0], 3);
  EXPECT_EQ(all[2], 3);
  EXPECT_EQ(all[4], 3);
  EXPECT_EQ(all[1] + all[3], 10);
  EXPECT_EQ(align(frames, 2)[2], 2);
  // 8 frames cannot give three phones 3 each: one frame a phone is required instead.
  const std::vector<float> short_one = {silence, one, one, two, one, one, one, silence};
  const std::vector<int> fallback = align(short_one, 0);
  EXPECT_EQ(fallback, (std::vector<int>{1, 2, 1, 3, 1}));
}

TEST(AcousticAlignment, FlatStartGivesTheEdgesSilenceToBosAndEos) {
  // One utterance: BOS, five phonemes, EOS over 40 frames, of which the first 8 and the last 5
  // are near the log floor and the 27 between them loud.
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  const acoustic::AcousticWeights w = initialised_weights(config);
  acoustic::AcousticLossSettings settings = settings_with_pauses(config, {0, 6});
  acoustic::AcousticBatch batch;
  batch.ids = {0, 1, 2, 3, 4, 5, 6};
  batch.token_lengths = {7};
  batch.frame_lengths = {40};
  batch.mel = kernels::Matrix::Constant(config.n_mels, 40, -11.0f);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> loud(-4.0f, -1.0f), quiet(-11.5f, -10.5f);
  for (Eigen::Index f = 0; f < 40; ++f)
    for (Eigen::Index m = 0; m < config.n_mels; ++m)
      batch.mel(m, f) = f >= 8 && f < 35 ? loud(rng) : quiet(rng);
  const std::vector<int> edges = acoustic::AcousticPass(w, settings).flat_start_durations(batch);
  std::vector<int> expected = kernels::uniform_durations(5, 27);
  expected.insert(expected.begin(), 8);
  expected.push_back(5);
  EXPECT_EQ(edges, expected);
  // Switched off: every token gets its even share, silence or not.
  settings.edge_silence_threshold = 0.0f;
  const std::vector<int> even = acoustic::AcousticPass(w, settings).flat_start_durations(batch);
  EXPECT_EQ(even, kernels::uniform_durations(7, 40));
  // A recording that is silence throughout still leaves every phoneme a frame.
  settings.edge_silence_threshold = 0.3f;
  batch.mel.setConstant(-11.0f);
  batch.mel(0, 20) = 0.0f;
  const std::vector<int> quietest = acoustic::AcousticPass(w, settings).flat_start_durations(batch);
  for (int k = 1; k <= 5; ++k) EXPECT_GE(quietest[static_cast<std::size_t>(k)], 1) << k;
  int total = 0;
  for (int d : quietest) total += d;
  EXPECT_EQ(total, 40);
}
