// The variance adaptor's data plumbing (acoustic/variance_adaptor.h): the continuous log
// F0 contour, per-token targets, the synthesis contour between token centres, bucket coordinates
// and the masked loss, each against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tts/acoustic/variance_adaptor.h"

using namespace tts;
using kernels::Matrix;

TEST(AcousticVariance, ContinuousLogF0CarriesAcrossUnvoicedFramesInLogF0) {
  const Matrix c = acoustic::continuous_log_f0({0.0f, 100.0f, 0.0f, 0.0f, 400.0f, 0.0f});
  ASSERT_EQ(c.cols(), 6);
  const float a = std::log(100.0f), b = std::log(400.0f);
  EXPECT_FLOAT_EQ(c(0, 0), a);  // before the first voiced frame: its value
  EXPECT_FLOAT_EQ(c(0, 1), a);
  EXPECT_NEAR(c(0, 2), a + (b - a) / 3.0f, 1e-6);  // 100 · 4^(1/3) Hz
  EXPECT_NEAR(c(0, 3), a + 2.0f * (b - a) / 3.0f, 1e-6);
  EXPECT_FLOAT_EQ(c(0, 4), b);
  EXPECT_FLOAT_EQ(c(0, 5), b);  // after the last: its value
  const Matrix silent = acoustic::continuous_log_f0({0.0f, 0.0f});
  EXPECT_TRUE(std::isnan(silent(0, 0)) && std::isnan(silent(0, 1)));
}

TEST(AcousticVariance, TokenMeansAverageEachTokensFramesAndMaskSilentTokens) {
  Matrix frames(1, 5);
  frames << 1, 3, 10, 4, 8;
  Matrix means;
  std::vector<float> mask;
  acoustic::token_means(frames, {2, 0, 1, 2}, means, mask);
  ASSERT_EQ(means.cols(), 4);
  EXPECT_FLOAT_EQ(means(0, 0), 2.0f);
  EXPECT_FLOAT_EQ(means(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(means(0, 2), 10.0f);
  EXPECT_FLOAT_EQ(means(0, 3), 6.0f);
  EXPECT_EQ(mask, (std::vector<float>{1, 0, 1, 1}));
  EXPECT_THROW(acoustic::token_means(frames, {2, 2}, means, mask), std::invalid_argument);
}

TEST(AcousticVariance, TokensToFramesInterpolatesBetweenTokenCentres) {
  Matrix tokens(1, 3);
  tokens << 0, 99, 4;  // the middle token has no frames and is not heard
  Matrix frames;
  acoustic::tokens_to_frames(tokens, {2, 0, 4}, frames);
  ASSERT_EQ(frames.cols(), 6);
  // Centres at frames 0.5 and 3.5: constant before the first and after the last.
  const float expected[] = {0.0f, 4.0f * 0.5f / 3.0f, 4.0f * 1.5f / 3.0f, 4.0f * 2.5f / 3.0f, 4.0f,
                            4.0f};
  for (int f = 0; f < 6; ++f) EXPECT_NEAR(frames(0, f), expected[f], 1e-6) << f;
}

TEST(AcousticVariance, BucketCoordinatesSpanTheTableAndClampOutside) {
  Matrix values(1, 5);
  values << -1.0f, 0.0f, 0.25f, 1.0f, NAN;
  std::vector<int32_t> index;
  std::vector<float> weight;
  acoustic::bucket_coordinates(values, 0.0f, 1.0f, 11, index, weight);  // buckets 0.1 apart
  EXPECT_EQ(index, (std::vector<int32_t>{0, 0, 2, 9, 0}));
  EXPECT_FLOAT_EQ(weight[0], 0.0f);
  EXPECT_NEAR(weight[2], 0.5f, 1e-5);  // half way from bucket 2 (0.2) to bucket 3 (0.3)
  EXPECT_FLOAT_EQ(weight[3], 1.0f);    // the top bucket
  EXPECT_FLOAT_EQ(weight[4], 0.0f);
}

TEST(AcousticVariance, MaskedMeanSquaredErrorIgnoresMaskedTokens) {
  Matrix predicted(1, 3), target(1, 3), gradient;
  predicted << 1, 5, 2;
  target << 0, 0, 4;
  const double loss = acoustic::masked_mse(predicted, target, {1, 0, 1}, gradient, 0.5f);
  EXPECT_DOUBLE_EQ(loss, (1.0 + 4.0) / 2.0);
  EXPECT_FLOAT_EQ(gradient(0, 0), 0.5f * 2.0f * 1.0f / 2.0f);
  EXPECT_FLOAT_EQ(gradient(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(gradient(0, 2), 0.5f * 2.0f * -2.0f / 2.0f);
  EXPECT_EQ(acoustic::masked_mse(predicted, target, {0, 0, 0}, gradient, 1.0f), 0.0);
}
