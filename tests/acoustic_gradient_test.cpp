// Finite-difference checks of the acoustic model's backward passes: each layer on its own, then
// every tensor of the whole network on a tiny config, with a normalised error that a zero or
// sign-flipped gradient cannot pass.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "tiny_acoustic.h"
#include "tts/acoustic/layers.h"
#include "tts/acoustic/network.h"
#include "tts/acoustic/variance_adaptor.h"
#include "tts/kernels/ops/backends.h"
#include "tts/kernels/ops/buffer.h"

using namespace tts;
using kernels::Matrix;

namespace {

void randomise(float* values, std::size_t n, uint64_t seed, float sigma = 0.3f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  for (std::size_t k = 0; k < n; ++k) values[k] += normal(rng);
}

// Compares analytic against central differences for the values[0..n) that `loss` depends on.
void expect_matches(const std::function<double()>& loss, float* values, const float* analytic,
                    std::size_t n, const std::string& what, double tolerance = 2e-2,
                    float eps = 1e-2f) {
  double diff2 = 0.0, norm2 = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const float saved = values[k];
    values[k] = saved + eps;
    const double up = loss();
    values[k] = saved - eps;
    const double down = loss();
    values[k] = saved;
    const double numeric = (up - down) / (2.0 * eps);
    diff2 += (numeric - analytic[k]) * (numeric - analytic[k]);
    norm2 += numeric * numeric;
  }
  ASSERT_GT(norm2, 1e-12) << what << ": the loss does not depend on it";
  EXPECT_LT(std::sqrt(diff2 / norm2), tolerance) << what;
}

// A fixed random projection of a layer's output, so the scalar loss exercises every element.
double project(const Matrix& out, const Matrix& probe) {
  return static_cast<double>(out.cwiseProduct(probe).sum());
}

// The layers run on the CPU backend, on these host arrays in place.
kernels::View view_of(Matrix& m) {
  return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()),
          static_cast<int>(m.rows())};
}
kernels::View view_of(kernels::ParameterSet& p) {
  return {p.data(), static_cast<int>(p.size()), 1, static_cast<int>(p.size())};
}
acoustic::LayerContext cpu_context(acoustic::AcousticWeights& w,
                                   kernels::ParameterSet* grads = nullptr) {
  return {kernels::cpu_backend(), kernels::GemmPrecision::kFp32, &w.parameters(),
          view_of(w.parameters()), grads ? view_of(*grads) : kernels::View{}};
}
std::unique_ptr<kernels::Lengths> cpu_lengths(const std::vector<int>& lengths) {
  auto l = kernels::cpu_backend().make_lengths();
  l->assign(lengths);
  return l;
}

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, uint64_t seed) {
  Matrix m = Matrix::Zero(rows, cols);
  randomise(m.data(), static_cast<std::size_t>(m.size()), seed, 1.0f);
  return m;
}

void check_conv_block(bool residual, acoustic::Dropout dropout = {}) {
  acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  config.channels = config.duration_channels = 3;
  acoustic::AcousticWeights w(config);
  w.initialise(5);
  randomise(w.parameters().data(), w.parameters().size(), 6);
  acoustic::ConvBlockLayout block = residual ? w.layout().encoder[0] : w.layout().duration[0];
  ASSERT_EQ(block.residual, residual);
  const std::vector<int> lengths = {4, 1, 3};  // a one-column utterance sees only zero padding
  const auto packed = cpu_lengths(lengths);
  kernels::Backend& cpu = kernels::cpu_backend();
  Matrix x = random_matrix(3, 8, 7);
  Matrix probe = random_matrix(3, 8, 8);
  auto loss = [&] {
    acoustic::ConvBlockActivations a(cpu);
    kernels::Buffer out(cpu);
    acoustic::conv_block_forward(cpu_context(w), block, view_of(x), *packed, a, out, dropout);
    return project(out.download(), probe);
  };
  acoustic::ConvBlockActivations a(cpu);
  kernels::Buffer out(cpu);
  acoustic::conv_block_forward(cpu_context(w), block, view_of(x), *packed, a, out, dropout);
  EXPECT_EQ(a.keep.rows() > 0, dropout.rate > 0.0f);
  kernels::ParameterSet grads = w.parameters().zeros_like();
  Matrix dx = Matrix::Zero(3, 8);
  acoustic::ConvBlockScratch scratch(cpu);
  acoustic::conv_block_backward(cpu_context(w, &grads), block, *packed, a, view_of(probe),
                                view_of(dx), scratch);
  expect_matches(loss, x.data(), dx.data(), static_cast<std::size_t>(x.size()), "input");
  for (int index : {block.conv, block.conv_bias, block.norm_scale, block.norm_bias}) {
    const auto& e = w.parameters().entries()[index];
    expect_matches(loss, w.parameters().data() + e.offset, grads.data() + e.offset, e.size(),
                   e.name);
  }
}

}  // namespace

TEST(AcousticGradient, ResidualConvBlock) { check_conv_block(true); }
TEST(AcousticGradient, PlainConvBlock) { check_conv_block(false); }
TEST(AcousticGradient, ResidualConvBlockWithDropout) { check_conv_block(true, {0.4f, 3}); }
TEST(AcousticGradient, PlainConvBlockWithDropout) { check_conv_block(false, {0.4f, 3}); }

TEST(AcousticGradient, Linear) {
  acoustic::AcousticWeights w(tts::testing::tiny_acoustic_config());
  w.initialise(2);
  const acoustic::LinearLayout layer = w.layout().prior;  // 3 × 4
  Matrix x = random_matrix(4, 5, 3);
  Matrix probe = random_matrix(3, 5, 4);
  auto loss = [&] {
    kernels::Buffer y(kernels::cpu_backend());
    acoustic::linear_forward(cpu_context(w), layer, view_of(x), y);
    return project(y.download(), probe);
  };
  kernels::ParameterSet grads = w.parameters().zeros_like();
  Matrix dx = Matrix::Zero(4, 5);
  acoustic::linear_backward(cpu_context(w, &grads), layer, view_of(x), view_of(probe), view_of(dx));
  expect_matches(loss, x.data(), dx.data(), static_cast<std::size_t>(x.size()), "input");
  for (int index : {layer.weight, layer.bias}) {
    const auto& e = w.parameters().entries()[index];
    expect_matches(loss, w.parameters().data() + e.offset, grads.data() + e.offset, e.size(),
                   e.name);
  }
}

// The whole network on a random packed batch with given durations: the tensors `check` names
// against central differences. Returns how many tensors were checked.
int check_network_gradient(const acoustic::AcousticConfig& config,
                           const acoustic::AcousticLossSettings& settings,
                           const std::function<bool(const std::string&)>& check, double tolerance) {
  acoustic::AcousticWeights w(config);
  w.initialise(7);
  randomise(w.parameters().data(), w.parameters().size(), 3);
  std::vector<int> durations;
  const acoustic::AcousticBatch batch =
      tts::testing::random_acoustic_batch(config, {4, 1, 3}, 11, durations);
  const uint64_t dropout_seed = 5;  // the same masks in every forward pass
  acoustic::AcousticPass pass(w, settings);
  pass.forward(batch, durations, dropout_seed);
  kernels::ParameterSet grads = w.parameters().zeros_like();
  pass.backward(grads);
  auto loss = [&] {
    acoustic::AcousticPass probe(w, settings);
    return probe.forward(batch, durations, dropout_seed).total;
  };
  int checked = 0;
  for (const auto& e : w.parameters().entries()) {
    if (!check(e.name)) continue;
    expect_matches(loss, w.parameters().data() + e.offset, grads.data() + e.offset, e.size(),
                   e.name, tolerance, 3e-3f);
    ++checked;
  }
  return checked;
}

class AcousticNetworkGradient : public ::testing::TestWithParam<bool> {};

TEST_P(AcousticNetworkGradient, EveryTensorMatchesFiniteDifferences) {
  acoustic::AcousticLossSettings settings;
  settings.l1_mel = GetParam();
  settings.prior_weight = 0.7f;
  settings.duration_weight = 1.3f;
  // L1 has kinks; a looser bound keeps central differences that straddle them from failing.
  check_network_gradient(
      tts::testing::tiny_acoustic_config(), settings, [](const std::string&) { return true; },
      settings.l1_mel ? 5e-2 : 2e-2);
}

TEST(AcousticGradient, NetworkWithDropoutMatchesFiniteDifferences) {
  acoustic::AcousticLossSettings settings;
  settings.l1_mel = false;
  settings.dropout = 0.3f;
  const int checked = check_network_gradient(
      tts::testing::tiny_acoustic_config(), settings, [](const std::string&) { return true; },
      2e-2);
  EXPECT_GT(checked, 10);
}

INSTANTIATE_TEST_SUITE_P(MelLoss, AcousticNetworkGradient, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "L1" : "L2"; });

TEST(AcousticGradient, DropoutActsInTrainingOnlyAndFollowsItsSeed) {
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  acoustic::AcousticWeights w(config);
  w.initialise(4);
  std::vector<int> durations;
  const auto batch = tts::testing::random_acoustic_batch(config, {5, 3}, 6, durations);
  acoustic::AcousticLossSettings dropping;
  dropping.dropout = 0.5f;
  acoustic::AcousticPass plain(w), pass(w, dropping);
  const double without = plain.forward(batch, durations).total;
  const double seed1 = pass.forward(batch, durations, 1).total;
  EXPECT_NE(seed1, without);
  EXPECT_NE(pass.forward(batch, durations, 2).total, seed1);
  EXPECT_EQ(pass.forward(batch, durations, 1).total, seed1);
  // Synthesis and alignment search see the whole network.
  const std::vector<int32_t> ids(batch.ids.begin(), batch.ids.begin() + 5);
  std::vector<int> d_plain, d_pass;
  Matrix mel_plain, mel_pass;
  plain.synthesize(ids, 1.0f, d_plain, mel_plain);
  pass.synthesize(ids, 1.0f, d_pass, mel_pass);
  EXPECT_EQ(d_plain, d_pass);
  EXPECT_EQ(mel_plain, mel_pass);
  EXPECT_EQ(plain.align(batch), pass.align(batch));
}

// Dynamic loss scaling's input: a power-of-two scale multiplies every gradient exactly (the pass
// is linear in the losses' gradients it scales), and a later backward() at another scale rescales.
TEST(AcousticGradient, ALossScaleMultipliesTheGradientExactly) {
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  acoustic::AcousticWeights w(config);
  w.initialise(1);
  std::vector<int> durations;
  const auto batch = tts::testing::random_acoustic_batch(config, {5, 2}, 4, durations);
  acoustic::AcousticPass pass(w);
  pass.forward(batch, durations);
  kernels::ParameterSet plain = w.parameters().zeros_like();
  kernels::ParameterSet scaled = plain, again = plain;
  pass.backward(plain);
  pass.backward(scaled, 1024.0f);
  pass.backward(again, 1.0f);
  for (std::size_t k = 0; k < plain.size(); ++k) {
    ASSERT_EQ(scaled.data()[k], 1024.0f * plain.data()[k]) << k;
    ASSERT_EQ(again.data()[k], plain.data()[k]) << k;
  }
}

TEST(AcousticGradient, BackwardAccumulatesAcrossCalls) {
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  acoustic::AcousticWeights w(config);
  w.initialise(1);
  std::vector<int> durations;
  const auto batch = tts::testing::random_acoustic_batch(config, {5, 2}, 4, durations);
  acoustic::AcousticPass pass(w);
  pass.forward(batch, durations);
  kernels::ParameterSet once = w.parameters().zeros_like(), twice = w.parameters().zeros_like();
  pass.backward(once);
  pass.backward(twice);
  pass.backward(twice);
  double max_error = 0.0, max_value = 0.0;
  for (std::size_t k = 0; k < once.size(); ++k) {
    max_error = std::max(max_error, std::abs(2.0 * once.data()[k] - twice.data()[k]));
    max_value = std::max(max_value, std::abs(static_cast<double>(once.data()[k])));
  }
  EXPECT_GT(max_value, 1e-4);
  EXPECT_LT(max_error, 1e-6 * max_value + 1e-9);
}

TEST(AcousticGradient, PackedBatchEqualsUtterancesOneByOne) {
  const acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  acoustic::AcousticWeights w(config);
  w.initialise(9);
  std::vector<int> durations;
  const auto batch = tts::testing::random_acoustic_batch(config, {4, 6}, 2, durations);
  acoustic::AcousticPass pass(w);
  pass.forward(batch, durations);
  const Matrix packed = pass.predicted_mel();
  Eigen::Index frame = 0;
  std::size_t token = 0;
  for (std::size_t u = 0; u < 2; ++u) {
    acoustic::AcousticBatch one;
    const int tokens = batch.token_lengths[u], frames = batch.frame_lengths[u];
    one.ids.assign(batch.ids.begin() + token, batch.ids.begin() + token + tokens);
    one.token_lengths = {tokens};
    one.frame_lengths = {frames};
    one.mel = batch.mel.middleCols(frame, frames);
    one.log_f0 = batch.log_f0.middleCols(frame, frames);
    one.log_energy = batch.log_energy.middleCols(frame, frames);
    const std::vector<int> d(durations.begin() + token, durations.begin() + token + tokens);
    acoustic::AcousticPass single(w);
    single.forward(one, d);
    EXPECT_LT((single.predicted_mel() - packed.middleCols(frame, frames)).norm(),
              1e-5 * packed.middleCols(frame, frames).norm())
        << "utterance " << u;
    frame += frames;
    token += static_cast<std::size_t>(tokens);
  }
}

TEST(AcousticGradient, AlignmentStatesMatchFiniteDifferences) {
  // Three prior means per token; given durations of 1–3 frames leave some states empty. Only the
  // prior depends on the states, and its loss is quadratic, so its tensors are checked.
  acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  config.alignment_states = 3;
  acoustic::AcousticLossSettings settings;
  settings.prior_weight = 0.7f;
  const int checked = check_network_gradient(
      config, settings, [](const std::string& name) { return name.rfind("prior.", 0) == 0; }, 1e-2);
  EXPECT_EQ(checked, 2);
  acoustic::AcousticWeights w(config);
  w.initialise(7);
  EXPECT_EQ(w.parameters().entries()[w.layout().prior.weight].rows, config.n_mels * 3);
  // Searched durations keep the rules: every token that sounds gets a frame; the sums match.
  std::vector<int> durations;
  const auto batch = tts::testing::random_acoustic_batch(config, {4, 1, 3}, 11, durations);
  acoustic::AcousticPass pass(w);
  const std::vector<int> searched = pass.align(batch);
  int total = 0;
  for (int d : searched) {
    EXPECT_GE(d, 1);
    total += d;
  }
  EXPECT_EQ(total, batch.mel.cols());
}

// The variance adaptor's predictor (two conv blocks and a linear, on the encoder's output) against
// central differences, for its parameters and its input, at several widths.
class VariancePredictorGradient : public ::testing::TestWithParam<int> {};

TEST_P(VariancePredictorGradient, MatchesFiniteDifferences) {
  const float kEps = 1e-3f;
  acoustic::AcousticConfig config = tts::testing::tiny_acoustic_config();
  config.variance_channels = GetParam();
  acoustic::AcousticWeights w(config);
  w.initialise(5);
  randomise(w.parameters().data(), w.parameters().size(), 6);
  const acoustic::VarianceLayout& layout = w.layout().pitch;
  const std::vector<int> lengths = {4, 1, 3};
  const auto packed = cpu_lengths(lengths);
  kernels::Backend& cpu = kernels::cpu_backend();
  Matrix x = random_matrix(config.channels, 8, 7);
  Matrix probe = random_matrix(1, 8, 8);
  auto loss = [&] {
    acoustic::VariancePredictorActivations a(cpu);
    acoustic::variance_predictor_forward(cpu_context(w), layout, view_of(x), *packed, a);
    return project(a.predicted.download(), probe);
  };
  acoustic::VariancePredictorActivations a(cpu);
  acoustic::variance_predictor_forward(cpu_context(w), layout, view_of(x), *packed, a);
  kernels::ParameterSet grads = w.parameters().zeros_like();
  Matrix dx = Matrix::Zero(x.rows(), x.cols());
  acoustic::ConvBlockScratch scratch(cpu);
  acoustic::variance_predictor_backward(cpu_context(w, &grads), layout, *packed, a, view_of(probe),
                                        view_of(dx), scratch);
  expect_matches(loss, x.data(), dx.data(), static_cast<std::size_t>(x.size()), "input", 2e-2,
                 kEps);
  for (const auto& e : w.parameters().entries()) {
    if (e.name.rfind("pitch.", 0) != 0 || e.name == "pitch.embedding") continue;
    expect_matches(loss, w.parameters().data() + e.offset, grads.data() + e.offset, e.size(),
                   e.name, 2e-2, kEps);
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, VariancePredictorGradient, ::testing::Values(3, 4, 5, 6, 7, 9));
