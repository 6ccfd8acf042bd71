#include "tts/kernels/mulaw.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tts::kernels;

TEST(MuLaw, EndpointsAndSilence) {
  EXPECT_EQ(mulaw_encode(-1.0f), 0);
  EXPECT_EQ(mulaw_encode(1.0f), 255);
  EXPECT_EQ(mulaw_encode(2.0f), 255);  // clipped
  EXPECT_EQ(mulaw_encode(0.0f), 128);
  EXPECT_FLOAT_EQ(mulaw_decode(0), -1.0f);
  EXPECT_FLOAT_EQ(mulaw_decode(255), 1.0f);
}

TEST(MuLaw, RoundTripErrorWithinHalfAQuantisationStep) {
  // Classes are 2/255 apart in the companded domain y, so rounding moves y by at most 1/255. Since
  // |x| = (256^|y| - 1)/255, that moves x by at most (1/255 + |x_max|)·(256^(1/255) - 1), where
  // x_max is the larger of the two magnitudes.
  const float growth = std::pow(256.0f, 1.0f / 255.0f) - 1.0f;
  float worst = 0.0f;
  for (int k = -10000; k <= 10000; ++k) {
    const float x = static_cast<float>(k) / 10000.0f;
    const float y = mulaw_decode(mulaw_encode(x));
    const float bound = (1.0f / 255.0f + std::max(std::fabs(x), std::fabs(y))) * growth * 1.001f;
    ASSERT_LE(std::fabs(x - y), bound) << "x = " << x;
    worst = std::max(worst, std::fabs(x - y) / bound);
  }
  EXPECT_GT(worst, 0.9f);  // the bound is tight: some input comes close to it
}

TEST(MuLaw, EncodeIsMonotonicAndDecodeInvertsEveryClass) {
  int previous = 0;
  for (int k = -1000; k <= 1000; ++k) {
    const int c = mulaw_encode(static_cast<float>(k) / 1000.0f);
    ASSERT_GE(c, previous);
    previous = c;
  }
  for (int c = 0; c < 256; ++c) EXPECT_EQ(mulaw_encode(mulaw_decode(c)), c);
}
