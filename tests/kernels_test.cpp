// Layer-level checks of the CPU kernels: adjoints, finite differences and sampling.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tts/kernels/activations.h"
#include "tts/kernels/sequence.h"
#include "tts/kernels/softmax.h"

using namespace tts::kernels;

namespace {
Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}
double dot(const Matrix& a, const Matrix& b) {
  return a.cast<double>().cwiseProduct(b.cast<double>()).sum();
}
}  // namespace

TEST(Kernels, CausalShiftValuesAndAdjoint) {
  Matrix x = random_matrix(3, 12, 1);  // 2 segments of 6
  Matrix out(3, 12);
  causal_shift(x, 2, 2, out);
  for (int s = 0; s < 2; ++s)
    for (int t = 0; t < 6; ++t)
      for (int r = 0; r < 3; ++r) EXPECT_EQ(out(r, s * 6 + t), t < 2 ? 0.0f : x(r, s * 6 + t - 2));
  Matrix y = random_matrix(3, 12, 2), back = Matrix::Zero(3, 12);
  causal_shift_backward(y, 2, 2, back);
  EXPECT_NEAR(dot(out, y), dot(x, back), 1e-5);
  causal_shift(x, 9, 2, out);  // shift past the segment: all zeros
  EXPECT_EQ(out.norm(), 0.0f);
}

TEST(Kernels, InterpolationValuesAndAdjoint) {
  Matrix frames = random_matrix(2, 4, 3);
  std::vector<int32_t> index = {0, 0, 1, 2, 3};
  std::vector<float> weight = {0.0f, 0.25f, 0.5f, 0.75f, 0.0f};
  Matrix out = Matrix::Zero(2, 5);
  add_interpolated_columns(frames, index, weight, out);
  EXPECT_NEAR(out(1, 1), 0.75f * frames(1, 0) + 0.25f * frames(1, 1), 1e-6);
  EXPECT_NEAR(out(0, 4), frames(0, 3), 1e-6);
  Matrix y = random_matrix(2, 5, 4), back = Matrix::Zero(2, 4);
  add_interpolated_columns_backward(y, index, weight, back);
  EXPECT_NEAR(dot(out, y), dot(frames, back), 1e-5);
}

TEST(Kernels, GateBackwardMatchesFiniteDifferences) {
  Matrix z = random_matrix(8, 5, 5), upstream = random_matrix(4, 5, 6);
  Matrix gated(4, 5), th(4, 5), sg(4, 5), dz(8, 5);
  gate_forward(z, gated, th, sg);
  EXPECT_NEAR(gated(1, 2), std::tanh(z(1, 2)) / (1.0f + std::exp(-z(5, 2))), 1e-6);
  gate_backward(upstream, th, sg, dz);
  const float eps = 1e-3f;
  for (Eigen::Index k = 0; k < z.size(); ++k) {
    Matrix zp = z, zm = z;
    zp.data()[k] += eps;
    zm.data()[k] -= eps;
    Matrix gp(4, 5), gm(4, 5);
    gate_forward(zp, gp, th, sg);
    gate_forward(zm, gm, th, sg);
    const double numeric = (dot(gp, upstream) - dot(gm, upstream)) / (2 * eps);
    EXPECT_NEAR(numeric, dz.data()[k], 2e-3 * (1.0 + std::fabs(numeric)));
  }
}

TEST(Kernels, SoftmaxCrossEntropyValueAndGradient) {
  Matrix logits = random_matrix(6, 4, 7);
  std::vector<int32_t> targets = {0, 5, 2, 2};
  Matrix grad(6, 4);
  const double loss = softmax_cross_entropy(logits, targets, grad);
  double expected = 0.0;
  for (int t = 0; t < 4; ++t) {
    double sum = 0.0;
    for (int k = 0; k < 6; ++k) sum += std::exp(static_cast<double>(logits(k, t)));
    expected += std::log(sum) - logits(targets[t], t);
  }
  EXPECT_NEAR(loss, expected / 4, 1e-5);
  const float eps = 1e-3f;
  Matrix none(0, 0);
  for (Eigen::Index k = 0; k < logits.size(); ++k) {
    Matrix lp = logits, lm = logits;
    lp.data()[k] += eps;
    lm.data()[k] -= eps;
    const double numeric =
        (softmax_cross_entropy(lp, targets, none) - softmax_cross_entropy(lm, targets, none)) /
        (2 * eps);
    EXPECT_NEAR(numeric, grad.data()[k], 1e-3);
  }
  EXPECT_THROW(softmax_cross_entropy(logits, {0, 1, 2, 6}, none), std::invalid_argument);
}

TEST(Kernels, SoftmaxSampleInvertsTheCdf) {
  Vector logits(3);
  logits << std::log(0.2f), std::log(0.5f), std::log(0.3f);
  Vector scratch(3);
  EXPECT_EQ(softmax_sample(logits, 1.0f, 0.0f, scratch), 0);
  EXPECT_EQ(softmax_sample(logits, 1.0f, 0.19f, scratch), 0);
  EXPECT_EQ(softmax_sample(logits, 1.0f, 0.21f, scratch), 1);
  EXPECT_EQ(softmax_sample(logits, 1.0f, 0.69f, scratch), 1);
  EXPECT_EQ(softmax_sample(logits, 1.0f, 0.71f, scratch), 2);
  EXPECT_EQ(softmax_sample(logits, 1.0f, 0.9999999f, scratch), 2);
  EXPECT_EQ(softmax_sample(logits, 0.0f, 0.0f, scratch), 1);  // arg-max
  // Low temperature sharpens towards the arg-max: 0.5^(1/0.1) dominates.
  EXPECT_EQ(softmax_sample(logits, 0.1f, 0.9f, scratch), 1);
}
