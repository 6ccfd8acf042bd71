// The dynamic loss scaler on its own (tts/train/loss_scaler.h): when the scale halves and doubles,
// its bounds, the exact unscaling of finite gradients, the refusal of non-finite ones, the checks
// of its options and of a checkpoint's state, and when a run scales at all.
#include "tts/train/loss_scaler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

using namespace tts;
using ::testing::HasSubstr;
using train::LossScaler;
using Change = train::LossScaler::Change;

namespace {

train::LossScalingOptions scaling(float initial, int64_t growth_steps) {
  train::LossScalingOptions o;
  o.mode = train::LossScaling::kDynamic;
  o.initial_scale = initial;
  o.growth_steps = growth_steps;
  return o;
}

kernels::ParameterSet gradients(std::initializer_list<float> values) {
  kernels::ParameterSet g;
  g.add("g", static_cast<int>(values.size()), 1);
  std::copy(values.begin(), values.end(), g.data());
  return g;
}

}  // namespace

TEST(LossScaler, DefaultsAreTwoToTheSixteenAndTwoThousandSteps) {
  const train::LossScalingOptions o;
  EXPECT_EQ(o.mode, train::LossScaling::kAuto);
  EXPECT_EQ(o.initial_scale, 65536.0f);
  EXPECT_EQ(o.growth_steps, 2000);
}

TEST(LossScaler, HalvesOnOverflowAndDoublesAfterARunOfGoodSteps) {
  LossScaler s(scaling(1024.0f, 3));
  EXPECT_EQ(s.scale(), 1024.0f);
  EXPECT_EQ(s.update(true), Change::kNone);
  EXPECT_EQ(s.update(true), Change::kNone);
  EXPECT_EQ(s.state().good_steps, 2);
  EXPECT_EQ(s.update(true), Change::kGrew);  // the third good step in a row
  EXPECT_EQ(s.scale(), 2048.0f);
  EXPECT_EQ(s.state().good_steps, 0);
  EXPECT_EQ(s.update(true), Change::kNone);
  EXPECT_EQ(s.update(false), Change::kBackedOff);  // an overflow restarts the count
  EXPECT_EQ(s.scale(), 1024.0f);
  EXPECT_EQ(s.state().good_steps, 0);
  EXPECT_EQ(s.update(true), Change::kNone);
  EXPECT_EQ(s.update(true), Change::kNone);
  EXPECT_EQ(s.scale(), 1024.0f);  // two good steps since the overflow, not three
}

TEST(LossScaler, StaysWithinOneAndTwoToTheTwentyFour) {
  LossScaler low(scaling(2.0f, 1));
  EXPECT_EQ(low.update(false), Change::kBackedOff);
  EXPECT_EQ(low.update(false), Change::kNone);
  EXPECT_EQ(low.scale(), 1.0f);
  LossScaler high(scaling(8388608.0f, 1));  // 2^23
  EXPECT_EQ(high.update(true), Change::kGrew);
  EXPECT_EQ(high.update(true), Change::kNone);
  EXPECT_EQ(high.scale(), LossScaler::kMaxScale);
}

TEST(LossScaler, UnscalesFiniteGradientsExactlyAndRefusesOverflow) {
  LossScaler s(scaling(65536.0f, 10));
  kernels::ParameterSet g = gradients({65536.0f, -3.0f, 1e-30f});
  ASSERT_TRUE(s.unscale(g));
  EXPECT_EQ(g.data()[0], 1.0f);
  EXPECT_EQ(g.data()[1], -3.0f / 65536.0f);
  EXPECT_EQ(g.data()[2], 1e-30f / 65536.0f);
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    kernels::ParameterSet o = gradients({1.0f, bad});
    EXPECT_FALSE(s.unscale(o)) << bad;
    EXPECT_EQ(o.data()[0], 1.0f);  // left as it was
  }
}

TEST(LossScaler, RefusesBadOptionsAndStatesNamingThem) {
  for (float bad : {3.0f, 0.5f, 0.0f, 33554432.0f, std::numeric_limits<float>::quiet_NaN()}) {
    try {
      LossScaler s(scaling(bad, 10));
      FAIL() << "initial scale " << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("--loss-scale-init"));
      EXPECT_THAT(e.what(), HasSubstr("power of two"));
    }
  }
  try {
    LossScaler s(scaling(1024.0f, 0));
    FAIL() << "growth steps 0 were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--loss-scale-growth-steps"));
  }
  LossScaler s(scaling(1024.0f, 10));
  EXPECT_THROW(s.restore({6.0f, 0}), std::invalid_argument);
  EXPECT_THROW(s.restore({8.0f, -1}), std::invalid_argument);
  s.restore({8.0f, 4});
  EXPECT_EQ(s.scale(), 8.0f);
  EXPECT_EQ(s.state().good_steps, 4);
}

TEST(LossScaler, ItsStateRoundTripsThroughJsonAndBadValuesAreRefused) {
  const train::LossScaleState state{4096.0f, 17};
  const train::LossScaleState back = train::read_loss_scale(train::loss_scale_json(state));
  EXPECT_EQ(back.scale, 4096.0f);
  EXPECT_EQ(back.good_steps, 17);
  EXPECT_THROW(train::read_loss_scale({{"scale", 100.0f}, {"good_steps", 0}}),
               std::invalid_argument);
  EXPECT_ANY_THROW(train::read_loss_scale({{"scale", 128.0f}}));
}

TEST(LossScaler, IsOnByDefaultForFp16AloneAndWhereverItIsAskedFor) {
  using kernels::GemmPrecision;
  train::LossScalingOptions o;
  EXPECT_TRUE(train::loss_scaling_enabled(o, GemmPrecision::kFp16));
  EXPECT_FALSE(train::loss_scaling_enabled(o, GemmPrecision::kFp32));
  EXPECT_FALSE(train::loss_scaling_enabled(o, GemmPrecision::kBf16));
  o.mode = train::LossScaling::kDynamic;
  EXPECT_TRUE(train::loss_scaling_enabled(o, GemmPrecision::kFp32));
  o.mode = train::LossScaling::kOff;
  EXPECT_FALSE(train::loss_scaling_enabled(o, GemmPrecision::kFp16));
  EXPECT_EQ(train::parse_loss_scaling("dynamic"), train::LossScaling::kDynamic);
  EXPECT_EQ(train::parse_loss_scaling("off"), train::LossScaling::kOff);
  try {
    train::parse_loss_scaling("static");
    FAIL() << "'static' was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'static'"));
  }
}

TEST(LossScaler, ATrainerStepSkipsAndLogsAnOverflowAndLogsAGrowth) {
  const train::LossScalingOptions o = scaling(256.0f, 1);
  train::LossScaleState state{256.0f, 0};
  std::ostringstream log;
  kernels::ParameterSet bad = gradients({std::numeric_limits<float>::infinity()});
  EXPECT_FALSE(train::finish_scaled_step(o, state, bad, 7, log));
  EXPECT_EQ(state.scale, 128.0f);
  EXPECT_THAT(log.str(), HasSubstr("step 7: gradients not finite at loss scale 256: step skipped"));
  EXPECT_THAT(log.str(), HasSubstr("scale halved to 128"));
  kernels::ParameterSet good = gradients({256.0f});
  EXPECT_TRUE(train::finish_scaled_step(o, state, good, 8, log));
  EXPECT_EQ(good.data()[0], 2.0f);  // unscaled by the scale it was computed with
  EXPECT_EQ(state.scale, 256.0f);
  EXPECT_THAT(log.str(), HasSubstr("step 8: loss scale doubled to 256"));
}
