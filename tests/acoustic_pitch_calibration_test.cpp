// tts train calibrate-pitch's measurement (train/pitch_calibration.h) on a small model trained on
// real speech: the factor is the ratio of the spreads it reports, the model file takes it (and a
// dry run leaves it alone), synthesis stretches each utterance's pitch by it, and a model without
// a pitch predictor is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "alsa_acoustic_corpus.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/variance_adaptor.h"
#include "tts/train/pitch_calibration.h"

using namespace tts;
using ::testing::HasSubstr;

namespace {

class PitchCalibration : public testing_support::AlsaAcousticCorpusTest {};

float stored_spread(const std::filesystem::path& dir) {
  nlohmann::json j;
  std::ifstream(dir / "acoustic.json") >> j;
  return j["acoustic"].value("pitch_spread", -1.0f);
}

}  // namespace

TEST_F(PitchCalibration, MeasuresTheShrinkageAndStoresTheFactor) {
  train::train_acoustic(options("run", 30), log_);
  train::PitchCalibrationOptions o;
  o.model_dir = root_ / "run";
  o.data_dir = root_ / "data";
  o.write = false;
  const train::PitchCalibration dry = train::calibrate_pitch_spread(o, log_);
  EXPECT_GT(dry.utterances, 0);
  EXPECT_GT(dry.tokens, dry.utterances);
  EXPECT_GT(dry.target_spread, 0.0);
  EXPECT_GT(dry.predicted_spread, 0.0);
  EXPECT_NEAR(dry.pitch_spread, std::clamp(dry.target_spread / dry.predicted_spread, 0.25, 4.0),
              1e-12);
  EXPECT_EQ(dry.previous_spread, 1.0);
  EXPECT_EQ(stored_spread(o.model_dir), 1.0f);  // a dry run writes nothing

  const auto before = acoustic::load_acoustic_model(o.model_dir);
  o.write = true;
  const train::PitchCalibration wet = train::calibrate_pitch_spread(o, log_);
  EXPECT_EQ(wet.pitch_spread, dry.pitch_spread);  // the same measurement
  EXPECT_FLOAT_EQ(stored_spread(o.model_dir), static_cast<float>(wet.pitch_spread));
  // Synthesis now stretches each utterance's token pitch around its mean by the factor.
  const auto after = acoustic::load_acoustic_model(o.model_dir);
  const std::vector<int32_t> ids = {1, 12, 20, 31, 25, 2};
  const auto plain = before->synthesize(ids, {}), stretched = after->synthesize(ids, {});
  ASSERT_EQ(plain.durations, stretched.durations);
  std::vector<double> log_plain, log_stretched;
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (plain.durations[k] > 0) {
      log_plain.push_back(std::log(plain.f0_hz[k]));
      log_stretched.push_back(std::log(stretched.f0_hz[k]));
    }
  ASSERT_GE(log_plain.size(), 3u);
  auto spread = [](const std::vector<double>& v) {
    double mean = 0.0, squares = 0.0;
    for (double x : v) mean += x / static_cast<double>(v.size());
    for (double x : v) squares += (x - mean) * (x - mean);
    return std::sqrt(squares);
  };
  EXPECT_NEAR(spread(log_stretched) / spread(log_plain), wet.pitch_spread, 1e-3);

  // An extra stretch multiplies the same measurement (the voice's recipe asks for more than the
  // predictions' own shortfall); a non-positive one is refused.
  o.write = false;
  o.extra_stretch = 1.5;
  const train::PitchCalibration extra = train::calibrate_pitch_spread(o, log_);
  EXPECT_NEAR(extra.pitch_spread,
              std::clamp(1.5 * dry.target_spread / dry.predicted_spread, 0.25, 4.0), 1e-9);
  o.extra_stretch = 0.0;
  EXPECT_THROW(train::calibrate_pitch_spread(o, log_), std::invalid_argument);
}

TEST_F(PitchCalibration, ModelWithoutPitchIsRefused) {
  auto o = options("plain", 6);
  o.config.pitch_energy = false;
  train::train_acoustic(o, log_);
  train::PitchCalibrationOptions c;
  c.model_dir = root_ / "plain";
  c.data_dir = root_ / "data";
  try {
    train::calibrate_pitch_spread(c, log_);
    ADD_FAILURE() << "calibrated a model without a pitch predictor";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no pitch predictor"));
  }
}

TEST(PitchSpread, StretchesSoundingTokensAroundTheirMean) {
  kernels::Matrix tokens(1, 4);
  tokens << 1.0f, 7.0f, 3.0f, 2.0f;
  const kernels::Matrix out = acoustic::spread_pitch(tokens, {2, 0, 1, 3}, 2.0f);
  // Mean of the sounding tokens 1, 3, 2 is 2; the silent token keeps its value.
  EXPECT_FLOAT_EQ(out(0, 0), 0.0f);
  EXPECT_FLOAT_EQ(out(0, 1), 7.0f);
  EXPECT_FLOAT_EQ(out(0, 2), 4.0f);
  EXPECT_FLOAT_EQ(out(0, 3), 2.0f);
  EXPECT_EQ(acoustic::spread_pitch(tokens, {2, 0, 1, 3}, 1.0f), tokens);
}
