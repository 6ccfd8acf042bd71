// acoustic.json + acoustic.safetensors: a round trip, and every way a model folder can be wrong
// gives an error naming the file and the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "temp_folder.h"
#include "tiny_acoustic.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/model_files.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;

namespace {

class AcousticModelFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = tts::testing::tiny_acoustic_config();
    config_.symbols = static_cast<int>(frontend::SymbolTable::default_table().size());
    features_.n_mels = config_.n_mels;
    weights_ = std::make_unique<acoustic::AcousticWeights>(config_);
    weights_->initialise(3);
    acoustic::save_acoustic_model(dir_.path(), *weights_, features_,
                                  frontend::SymbolTable::default_table());
  }
  std::string load_error() {
    try {
      acoustic::load_acoustic_model(dir_.path());
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(loaded)";
  }
  void edit_json(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(std::ifstream(dir_ / "acoustic.json"));
    edit(j);
    std::ofstream(dir_ / "acoustic.json") << j.dump();
  }

  testing_support::TempFolder dir_;  // the model's folder
  acoustic::AcousticConfig config_;
  kernels::MelConfig features_;
  std::unique_ptr<acoustic::AcousticWeights> weights_;
};

}  // namespace

TEST_F(AcousticModelFiles, RoundTripGivesTheSameFrames) {
  const auto files = acoustic::load_acoustic_files(dir_.path());
  EXPECT_EQ(files.symbols->size(), frontend::SymbolTable::default_table().size());
  EXPECT_EQ(nlohmann::json(files.weights->config()), nlohmann::json(config_));
  const auto model = acoustic::load_acoustic_model(dir_.path());
  const std::vector<int32_t> ids = {1, 20, 30, 3, 40, 2};
  const auto out = model->synthesize(ids, {});
  acoustic::AcousticLossSettings timings;  // as the loaded model: from its symbol table
  timings.symbol_timings = frontend::SymbolTable::default_table().timings();
  acoustic::AcousticPass pass(*weights_, timings);
  std::vector<int> durations;
  kernels::Matrix mel;
  pass.synthesize(ids, 1.0f, durations, mel);
  EXPECT_EQ(out.durations, durations);
  EXPECT_TRUE(out.mel == mel);
}

TEST_F(AcousticModelFiles, MissingFolderOrJsonNamesTheFile) {
  fs::remove(dir_ / "acoustic.json");
  EXPECT_THAT(load_error(), HasSubstr("acoustic.json: cannot open"));
}

TEST_F(AcousticModelFiles, TruncatedWeightsNameTheFile) {
  const auto path = dir_ / "acoustic.safetensors";
  fs::resize_file(path, fs::file_size(path) / 2);
  EXPECT_THAT(load_error(), HasSubstr("acoustic.safetensors"));
}

TEST_F(AcousticModelFiles, WrongShapeNamesTheTensor) {
  edit_json([](nlohmann::json& j) { j["acoustic"]["channels"] = 6; });
  EXPECT_THAT(load_error(), HasSubstr("embedding"));
}

TEST_F(AcousticModelFiles, VersionFormatAndConsistencyAreChecked) {
  edit_json([](nlohmann::json& j) { j["format_version"] = 99; });
  EXPECT_THAT(load_error(), HasSubstr("format_version 99"));
  edit_json([](nlohmann::json& j) {
    j["format_version"] = acoustic::kAcousticFormatVersion;
    j["features"]["n_mels"] = 80;
  });
  EXPECT_THAT(load_error(), HasSubstr("n_mels"));
  edit_json([&](nlohmann::json& j) {
    j["features"]["n_mels"] = config_.n_mels;
    j["acoustic"]["typo"] = 1;
  });
  EXPECT_THAT(load_error(), HasSubstr("unknown field \"typo\""));
  edit_json([](nlohmann::json& j) {
    j["acoustic"].erase("typo");
    j["symbol_table"]["symbols"].erase(5);
  });
  EXPECT_THAT(load_error(), HasSubstr("symbol table"));
  edit_json([](nlohmann::json& j) { j["format"] = "tts-vocoder"; });
  EXPECT_THAT(load_error(), HasSubstr("format"));
}

TEST_F(AcousticModelFiles, NonFiniteWeightsAreRejected) {
  weights_->parameters().data()[3] = std::numeric_limits<float>::quiet_NaN();
  acoustic::save_acoustic_model(dir_.path(), *weights_, features_,
                                frontend::SymbolTable::default_table());
  EXPECT_THAT(load_error(), HasSubstr("NaN"));
}

TEST_F(AcousticModelFiles, AlignmentStatesRoundTripAndOldFilesHaveOne) {
  // A file from before the field existed means one state per token: the tiny 1-state model
  // still loads without it.
  edit_json([](nlohmann::json& j) { j["acoustic"].erase("alignment_states"); });
  EXPECT_EQ(acoustic::load_acoustic_files(dir_.path()).weights->config().alignment_states, 1);
  // A 3-state model (today's default) is written and read back with its field...
  acoustic::AcousticConfig three = config_;
  three.alignment_states = acoustic::AcousticConfig{}.alignment_states;
  ASSERT_EQ(three.alignment_states, 3);
  acoustic::AcousticWeights weights(three);
  weights.initialise(4);
  acoustic::save_acoustic_model(dir_.path(), weights, features_,
                                frontend::SymbolTable::default_table());
  EXPECT_EQ(acoustic::load_acoustic_files(dir_.path()).weights->config().alignment_states, 3);
  // ...and without it, its 3-state prior no longer matches and the tensor is named.
  edit_json([](nlohmann::json& j) { j["acoustic"].erase("alignment_states"); });
  EXPECT_THAT(load_error(), HasSubstr("prior.weight"));
  edit_json([](nlohmann::json& j) { j["acoustic"]["alignment_states"] = 9; });
  EXPECT_THAT(load_error(), HasSubstr("alignment_states must be in 1..4"));
}

TEST_F(AcousticModelFiles, ModelsWithoutPitchAreVersion2AndStillRead) {
  // Today's model has the variance adaptor and is written as version 3 with its statistics.
  nlohmann::json j = nlohmann::json::parse(std::ifstream(dir_ / "acoustic.json"));
  EXPECT_EQ(j["format_version"], acoustic::kAcousticFormatVersion);
  EXPECT_EQ(j["acoustic"]["pitch_energy"], true);
  EXPECT_FLOAT_EQ(j["acoustic"]["pitch_std"].get<float>(), config_.pitch_std);
  EXPECT_TRUE(acoustic::load_acoustic_model(dir_.path())->predicts_pitch());
  // A model without it is written as version 2, as tts wrote models before the adaptor, and reads
  // back as one that cannot shift its pitch.
  acoustic::AcousticConfig plain = config_;
  plain.pitch_energy = false;
  acoustic::AcousticWeights weights(plain);
  weights.initialise(4);
  acoustic::save_acoustic_model(dir_.path(), weights, features_,
                                frontend::SymbolTable::default_table());
  j = nlohmann::json::parse(std::ifstream(dir_ / "acoustic.json"));
  EXPECT_EQ(j["format_version"], acoustic::kAcousticFormatVersionWithoutPitch);
  EXPECT_FALSE(j["acoustic"].contains("pitch_energy"));
  const auto model = acoustic::load_acoustic_model(dir_.path());
  EXPECT_FALSE(model->predicts_pitch());
  const std::vector<int32_t> ids = {1, 12, 20, 2};
  EXPECT_NO_THROW(model->synthesize(ids, {}));
  EXPECT_EQ(model->synthesize(ids, {}).f0_hz, std::vector<float>(4, 0.0f));
  try {
    model->synthesize(ids, {1.0f, 2.0f});
    ADD_FAILURE() << "a pitch shift was accepted by a model without pitch";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no pitch predictor"));
  }
  // Version 2 never carried the adaptor; such a file is refused rather than guessed at.
  edit_json([](nlohmann::json& j) { j["acoustic"]["pitch_energy"] = true; });
  EXPECT_THAT(load_error(), HasSubstr("predates \"pitch_energy\""));
}

TEST_F(AcousticModelFiles, PitchShiftMovesEveryPhonesF0) {
  const auto model = acoustic::load_acoustic_model(dir_.path());
  const std::vector<int32_t> ids = {1, 12, 20, 31, 2};
  const auto plain = model->synthesize(ids, {});
  const auto raised = model->synthesize(ids, {1.0f, 5.0f});
  ASSERT_EQ(plain.f0_hz.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_GT(plain.f0_hz[i], 0.0f);
    EXPECT_NEAR(12.0 * std::log2(raised.f0_hz[i] / plain.f0_hz[i]), 5.0, 1e-3);
  }
  EXPECT_EQ(plain.durations, raised.durations);
  EXPECT_THROW(model->synthesize(ids, {1.0f, 30.0f}), std::invalid_argument);
}
