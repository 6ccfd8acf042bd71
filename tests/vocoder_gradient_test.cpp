// Finite-difference checks of the WaveNet's backward pass, tensor by tensor, on a tiny config.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tiny_wavenet.h"
#include "tts/vocoder/teacher_forced.h"

using namespace tts;

namespace {

double loss_at(vocoder::WaveNetWeights& w, const vocoder::Batch& b) {
  vocoder::TeacherForcedPass pass(w);
  return pass.forward(b);
}

// Compares the analytic gradient of one tensor with central differences, per element, using a
// normalised error that a zero or sign-flipped gradient cannot pass.
void check_tensor(vocoder::WaveNetWeights& w, const vocoder::Batch& b,
                  const kernels::ParameterSet& analytic, int index) {
  const auto& entry = w.parameters().entries()[index];
  float* values = w.parameters().data() + entry.offset;
  const float* grad = analytic.data() + entry.offset;
  const float eps = 1e-2f;
  double diff2 = 0.0, norm2 = 0.0;
  for (std::size_t k = 0; k < entry.size(); ++k) {
    const float saved = values[k];
    values[k] = saved + eps;
    const double up = loss_at(w, b);
    values[k] = saved - eps;
    const double down = loss_at(w, b);
    values[k] = saved;
    const double numeric = (up - down) / (2.0 * eps);
    diff2 += (numeric - grad[k]) * (numeric - grad[k]);
    norm2 += numeric * numeric;
  }
  ASSERT_GT(norm2, 1e-12) << entry.name << ": the loss does not depend on this tensor";
  EXPECT_LT(std::sqrt(diff2 / norm2), 2e-2) << entry.name;
}

}  // namespace

TEST(VocoderGradient, EveryTensorMatchesFiniteDifferences) {
  vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(7);
  // Non-zero biases, so their gradients are exercised through every nonlinearity.
  std::mt19937_64 rng(3);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  for (float* v = weights.parameters().data();
       v != weights.parameters().data() + weights.parameters().size(); ++v)
    *v += normal(rng);
  const vocoder::Batch batch = tts::testing::random_batch(config, 2, 9, 11);

  kernels::ParameterSet grads = weights.parameters().zeros_like();
  vocoder::TeacherForcedPass pass(weights);
  pass.forward(batch);
  pass.backward(grads);
  for (std::size_t i = 0; i < weights.parameters().entries().size(); ++i)
    check_tensor(weights, batch, grads, static_cast<int>(i));
}

// Dynamic loss scaling's input: a power-of-two scale multiplies every gradient exactly (the pass
// is linear in the logits' gradient it scales), and a later backward() at another scale rescales.
TEST(VocoderGradient, ALossScaleMultipliesTheGradientExactly) {
  vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(1);
  const vocoder::Batch batch = tts::testing::random_batch(config, 1, 8, 2);
  kernels::ParameterSet plain = weights.parameters().zeros_like();
  kernels::ParameterSet scaled = plain, again = plain;
  vocoder::TeacherForcedPass pass(weights);
  pass.forward(batch);
  pass.backward(plain);
  pass.backward(scaled, 1024.0f);
  pass.backward(again, 1.0f);
  for (std::size_t k = 0; k < plain.size(); ++k) {
    ASSERT_EQ(scaled.data()[k], 1024.0f * plain.data()[k]) << k;
    ASSERT_EQ(again.data()[k], plain.data()[k]) << k;
  }
}

TEST(VocoderGradient, BackwardAccumulatesAcrossCalls) {
  vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(1);
  const vocoder::Batch batch = tts::testing::random_batch(config, 1, 8, 2);
  kernels::ParameterSet once = weights.parameters().zeros_like();
  kernels::ParameterSet twice = weights.parameters().zeros_like();
  vocoder::TeacherForcedPass pass(weights);
  pass.forward(batch);
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
