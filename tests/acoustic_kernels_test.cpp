// The acoustic model's kernels against plain references: packed 1-D convolution, layer norm,
// the length regulator, Gaussian log-likelihoods, losses, and monotonic alignment search on
// hand-made and brute-forced cost matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "tts/kernels/alignment.h"
#include "tts/kernels/conv1d.h"
#include "tts/kernels/dropout.h"
#include "tts/kernels/losses.h"
#include "tts/kernels/normalization.h"

using namespace tts::kernels;

namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

double relative_error(const Matrix& a, const Matrix& b) {
  return (a - b).norm() / std::max(1e-30, static_cast<double>(b.norm()));
}

// Every monotonic alignment of P tokens to F frames (each token >= 1 frame), best score.
void brute_force(const Matrix& ll, int token, int frame, double score, std::vector<int>& current,
                 double& best, std::vector<int>& best_path) {
  const int tokens = static_cast<int>(ll.rows()), frames = static_cast<int>(ll.cols());
  if (token == tokens) {
    if (frame == frames && score > best) best = score, best_path = current;
    return;
  }
  for (int d = 1; frame + d + (tokens - token - 1) <= frames; ++d) {
    double s = score;
    for (int f = frame; f < frame + d; ++f) s += ll(token, f);
    current.push_back(d);
    brute_force(ll, token + 1, frame + d, s, current, best, best_path);
    current.pop_back();
  }
}

}  // namespace

TEST(Conv1d, MatchesDirectConvolutionPerUtterance) {
  const std::vector<int> lengths = {5, 1, 0, 4};
  const int in = 3, out = 2, kernel = 5;
  const Matrix x = random_matrix(in, 10, 1), w = random_matrix(out, kernel * in, 2);
  const Vector b = random_matrix(out, 1, 3);
  Matrix unfolded(kernel * in, 10), y(out, 10);
  conv1d_forward(x, w, b, kernel, lengths, unfolded, y);
  Matrix expected(out, 10);
  int start = 0;
  for (int length : lengths) {
    for (int t = 0; t < length; ++t) {
      Vector acc = b;
      for (int k = 0; k < kernel; ++k) {
        const int source = t + k - kernel / 2;
        if (source < 0 || source >= length) continue;
        acc += w.middleCols(k * in, in) * x.col(start + source);
      }
      expected.col(start + t) = acc;
    }
    start += length;
  }
  EXPECT_LT(relative_error(y, expected), 1e-6);
}

TEST(Conv1d, UnfoldBackwardIsTheAdjoint) {
  const std::vector<int> lengths = {3, 6, 2};
  const Matrix x = random_matrix(4, 11, 4), g = random_matrix(12, 11, 5);
  Matrix unfolded(12, 11), dx = Matrix::Zero(4, 11);
  conv1d_unfold(x, 3, lengths, unfolded);
  conv1d_unfold_backward(g, 3, lengths, dx);
  const double lhs = unfolded.cwiseProduct(g).sum(), rhs = x.cwiseProduct(dx).sum();
  EXPECT_NEAR(lhs, rhs, 1e-4 * std::abs(lhs));
  EXPECT_GT(std::abs(lhs), 1e-3);
}

TEST(Conv1d, RejectsBadShapes) {
  Matrix x(2, 4), u(6, 4);
  EXPECT_THROW(conv1d_unfold(x, 3, {2, 1}, u), std::invalid_argument);
  EXPECT_THROW(conv1d_unfold(x, 2, {4}, u), std::invalid_argument);
}

TEST(Dropout, DropsTheRateAndKeepsTheMean) {
  Matrix keep(200, 500);
  dropout_mask(0.3f, 17, keep);
  const Eigen::Index dropped = (keep.array() == 0.0f).count();
  const Eigen::Index kept = (keep.array() == 1.0f / 0.7f).count();
  EXPECT_EQ(dropped + kept, keep.size());  // nothing but 0 and 1 / (1 - rate)
  // 100,000 draws: the share dropped is within 4 standard deviations (0.006) of 0.3, so the
  // mask leaves activations unbiased on average.
  EXPECT_NEAR(static_cast<double>(dropped) / keep.size(), 0.3, 0.006);
  EXPECT_NEAR(keep.mean(), 1.0, 0.01);
  // Neighbouring elements are not correlated: a mask that repeated a pattern would be.
  const Eigen::ArrayXXf centred = keep.array() - keep.mean();
  const double lag1 =
      (centred.topRows(199) * centred.bottomRows(199)).mean() / centred.square().mean();
  EXPECT_LT(std::abs(lag1), 0.02);
}

TEST(Dropout, IsAPureFunctionOfTheSeed) {
  Matrix a(30, 40), b(30, 40), c(30, 40), none(30, 40);
  dropout_mask(0.5f, 7, a);
  dropout_mask(0.5f, 7, b);
  dropout_mask(0.5f, 8, c);
  EXPECT_EQ(a, b);
  // Different seeds agree on about half the elements, as independent masks would.
  const double same = static_cast<double>((a.array() == c.array()).count()) / a.size();
  EXPECT_GT(same, 0.4);
  EXPECT_LT(same, 0.6);
  dropout_mask(0.0f, 7, none);
  EXPECT_EQ(none, Matrix::Ones(30, 40));
  EXPECT_THROW(dropout_mask(1.0f, 7, a), std::invalid_argument);
  EXPECT_THROW(dropout_mask(-0.1f, 7, a), std::invalid_argument);
}

TEST(LayerNorm, NormalisesEachColumnAndBackwardMatchesFiniteDifferences) {
  Matrix x = random_matrix(5, 3, 6);
  const Vector gamma = random_matrix(5, 1, 7), beta = random_matrix(5, 1, 8);
  const Matrix probe = random_matrix(5, 3, 9);
  Matrix normalized(5, 3), y(5, 3);
  Vector inv_std(3);
  layer_norm_forward(x, gamma, beta, 1e-5f, normalized, inv_std, y);
  for (Eigen::Index t = 0; t < 3; ++t) {
    EXPECT_NEAR(normalized.col(t).mean(), 0.0, 1e-5);
    EXPECT_NEAR(normalized.col(t).squaredNorm() / 5, 1.0, 1e-3);
  }
  Matrix dx(5, 3);
  Vector d_gamma = Vector::Zero(5), d_beta = Vector::Zero(5);
  layer_norm_backward(probe, normalized, inv_std, gamma, dx, d_gamma, d_beta);
  Matrix numeric(5, 3);
  const float eps = 1e-2f;
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    auto loss = [&] {
      Matrix n(5, 3), out(5, 3);
      Vector s(3);
      layer_norm_forward(x, gamma, beta, 1e-5f, n, s, out);
      return static_cast<double>(out.cwiseProduct(probe).sum());
    };
    const float saved = x.data()[k];
    x.data()[k] = saved + eps;
    const double up = loss();
    x.data()[k] = saved - eps;
    const double down = loss();
    x.data()[k] = saved;
    numeric.data()[k] = static_cast<float>((up - down) / (2 * eps));
  }
  EXPECT_LT(relative_error(dx, numeric), 1e-2);
  EXPECT_LT(relative_error(d_beta, probe.rowwise().sum()), 1e-6);
}

TEST(LengthRegulator, RepeatsColumnsAndSumsBack) {
  const Matrix x = random_matrix(2, 3, 10);
  const std::vector<int> d = {2, 0, 3};
  Matrix out(2, 5);
  repeat_columns(x, d, out);
  EXPECT_EQ(out.col(0), x.col(0));
  EXPECT_EQ(out.col(1), x.col(0));
  EXPECT_EQ(out.col(2), x.col(2));
  EXPECT_EQ(out.col(4), x.col(2));
  const Matrix g = random_matrix(2, 5, 11);
  Matrix dx = Matrix::Zero(2, 3);
  repeat_columns_backward(g, d, dx);
  EXPECT_NEAR(out.cwiseProduct(g).sum(), x.cwiseProduct(dx).sum(), 1e-4);
  EXPECT_TRUE(dx.col(1).isZero());
  Matrix wrong(2, 4);
  EXPECT_THROW(repeat_columns(x, d, wrong), std::invalid_argument);
}

TEST(LengthRegulator, PositionFeatures) {
  Matrix out(2, 3);
  token_position_features({1, 2}, out);
  EXPECT_FLOAT_EQ(out(0, 0), 0.0f);
  EXPECT_FLOAT_EQ(out(0, 1), -0.25f);
  EXPECT_FLOAT_EQ(out(0, 2), 0.25f);
  EXPECT_FLOAT_EQ(out(1, 0), 0.0f);
  EXPECT_FLOAT_EQ(out(1, 2), std::log(2.0f) / 4);
}

TEST(GaussianLogLikelihood, MatchesDirectFormula) {
  const Matrix means = random_matrix(4, 3, 12), frames = random_matrix(4, 6, 13);
  Matrix ll(3, 6);
  gaussian_log_likelihood(means, frames, ll);
  for (int p = 0; p < 3; ++p)
    for (int f = 0; f < 6; ++f)
      EXPECT_NEAR(ll(p, f),
                  -0.5 * (frames.col(f) - means.col(p)).squaredNorm() - 2.0 * std::log(2 * M_PI),
                  1e-4);
}

TEST(Losses, MeanAndGradient) {
  Matrix p(1, 2), t(1, 2), d(1, 2);
  p << 1.0f, -2.0f;
  t << 0.0f, 0.0f;
  EXPECT_DOUBLE_EQ(mse_loss(p, t, d, 2.0f), 2.5);
  EXPECT_FLOAT_EQ(d(0, 0), 2.0f);  // 2·scale·(p - t)/n
  EXPECT_FLOAT_EQ(d(0, 1), -4.0f);
  EXPECT_DOUBLE_EQ(l1_loss(p, t, d), 1.5);
  EXPECT_FLOAT_EQ(d(0, 0), 0.5f);
  EXPECT_FLOAT_EQ(d(0, 1), -0.5f);
}

TEST(MonotonicAlignmentSearch, FindsTheKnownBestPathOfAHandMadeMatrix) {
  // 3 tokens, 7 frames; the obvious path is token 0 for frames 0-1, token 1 for 2-4, token 2 for
  // 5-6. Frame 3 tempts a greedy aligner to jump to token 2 early (its 0 beats token 1's -1),
  // and token 0 at frame 2 is nearly as good as token 1; only the global optimum gets both.
  Matrix ll(3, 7);
  ll << 0, 0, -0.9, -9, -9, -9, -9,  //
      -9, -9, 0, -1, 0, -9, -9,      //
      -9, -9, -9, 0, -9, 0, 0;
  const std::vector<int> expected = {2, 3, 2};
  EXPECT_EQ(monotonic_alignment_search(ll), expected);
}

TEST(MonotonicAlignmentSearch, AgreesWithBruteForceOnRandomMatrices) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const int tokens = 1 + static_cast<int>(seed % 4), frames = tokens + static_cast<int>(seed % 5);
    const Matrix ll = random_matrix(tokens, frames, 100 + seed);
    std::vector<int> current, best_path;
    double best = -std::numeric_limits<double>::infinity();
    brute_force(ll, 0, 0, 0.0, current, best, best_path);
    const std::vector<int> found = monotonic_alignment_search(ll);
    double score = 0.0;
    int frame = 0;
    for (int p = 0; p < tokens; ++p)
      for (int j = 0; j < found[p]; ++j) score += ll(p, frame++);
    EXPECT_EQ(frame, frames);
    EXPECT_NEAR(score, best, 1e-4) << "seed " << seed;
  }
}

// Every assignment of durations (>= 1, or >= 0 where may_skip) summing to the frames, scored.
double best_score_with_skips(const Matrix& ll, const std::vector<bool>& may_skip) {
  const int tokens = static_cast<int>(ll.rows()), frames = static_cast<int>(ll.cols());
  double best = -std::numeric_limits<double>::infinity();
  std::vector<int> d(static_cast<std::size_t>(tokens), 0);
  const std::function<void(int, int)> walk = [&](int p, int left) {
    if (p == tokens - 1) {
      if (left < (may_skip[p] ? 0 : 1)) return;
      d[p] = left;
      double score = 0.0;
      int frame = 0;
      for (int q = 0; q < tokens; ++q)
        for (int j = 0; j < d[q]; ++j) score += ll(q, frame++);
      best = std::max(best, score);
      return;
    }
    for (int k = may_skip[p] ? 0 : 1; k <= left; ++k) d[p] = k, walk(p + 1, left - k);
  };
  walk(0, frames);
  return best;
}

TEST(MonotonicAlignmentSearch, SkippableTokensAgreeWithBruteForce) {
  for (uint64_t seed = 0; seed < 80; ++seed) {
    std::mt19937_64 rng(seed);
    const int tokens = 1 + static_cast<int>(seed % 6);
    std::vector<bool> may_skip(static_cast<std::size_t>(tokens));
    int sounding = 0;
    for (int p = 0; p < tokens; ++p) sounding += !(may_skip[p] = rng() % 2 == 0);
    const int frames = std::max(1, sounding) + static_cast<int>(seed % 4);
    const Matrix ll = random_matrix(tokens, frames, 500 + seed);
    const std::vector<int> found = monotonic_alignment_search(ll, may_skip);
    double score = 0.0;
    int frame = 0;
    for (int p = 0; p < tokens; ++p) {
      EXPECT_GE(found[p], may_skip[p] ? 0 : 1) << "seed " << seed << " token " << p;
      for (int j = 0; j < found[p]; ++j) score += ll(p, frame++);
    }
    EXPECT_EQ(frame, frames);
    EXPECT_NEAR(score, best_score_with_skips(ll, may_skip), 1e-4) << "seed " << seed;
  }
}

TEST(MonotonicAlignmentSearch, StressAndBoundaryTokensTakeNoFramesWhenTheFramesSaySo) {
  // Tokens: a ˈ b (space) c; frames: 2 of a, 2 of b, 2 of c. The marks fit no frame at all.
  Matrix ll = Matrix::Constant(5, 6, -10.0f);
  ll.block(0, 0, 1, 2).setZero();
  ll.block(2, 2, 1, 2).setZero();
  ll.block(4, 4, 1, 2).setZero();
  const std::vector<bool> may_skip = {false, true, false, true, false};
  EXPECT_EQ(monotonic_alignment_search(ll, may_skip), (std::vector<int>{2, 0, 2, 0, 2}));
  for (int d : monotonic_alignment_search(ll)) EXPECT_GE(d, 1);  // without a mask, as Glow-TTS
  // Leading and trailing skippable tokens (BOS, EOS) may take nothing either.
  Matrix edges = Matrix::Constant(3, 2, -10.0f);
  edges.row(1).setZero();
  EXPECT_EQ(monotonic_alignment_search(edges, {true, false, true}), (std::vector<int>{0, 2, 0}));
  // Only the tokens that must sound need frames; a wrong-sized mask is an error.
  EXPECT_NO_THROW(monotonic_alignment_search(Matrix::Zero(4, 2), {true, false, true, false}));
  EXPECT_THROW(monotonic_alignment_search(Matrix::Zero(4, 2), {false, false, true, false}),
               std::invalid_argument);
  EXPECT_THROW(monotonic_alignment_search(Matrix::Zero(2, 2), {true}), std::invalid_argument);
}

TEST(MonotonicAlignmentSearch, EveryTokenGetsAFrameAndTooFewFramesIsAnError) {
  Matrix ll = Matrix::Zero(3, 3);
  ll.row(0).setConstant(5.0f);  // token 0 would take everything if it could
  EXPECT_EQ(monotonic_alignment_search(ll), (std::vector<int>{1, 1, 1}));
  EXPECT_THROW(monotonic_alignment_search(Matrix::Zero(4, 3)), std::invalid_argument);
  EXPECT_THROW(monotonic_alignment_search(Matrix::Zero(0, 3)), std::invalid_argument);
}
