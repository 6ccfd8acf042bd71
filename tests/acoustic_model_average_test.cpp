// Averaging acoustic models' weights (`tts train acoustic-average`): the element-wise mean of the
// runs, refused (naming the folder) when the runs are not of one architecture and corpus.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "tiny_acoustic.h"
#include "tts/frontend/acoustic/model_average.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;

namespace {

class AcousticModelAverage : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tts-acoustic-average-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    config_ = tts::testing::tiny_acoustic_config();
    config_.symbols = static_cast<int>(frontend::SymbolTable::default_table().size());
    features_.n_mels = config_.n_mels;
  }
  void TearDown() override { fs::remove_all(root_); }

  // A model with `config` and weights initialised from `seed`, saved under root_/name.
  fs::path save(const std::string& name, uint64_t seed, const frontend::AcousticConfig& config) {
    frontend::AcousticWeights weights(config);
    weights.initialise(seed);
    frontend::save_acoustic_model(root_ / name, weights, features_,
                                  frontend::SymbolTable::default_table());
    return root_ / name;
  }
  static std::vector<float> values(const fs::path& dir) {
    const auto files = frontend::load_acoustic_files(dir);
    const auto& p = files.weights->parameters();
    return {p.data(), p.data() + p.size()};
  }
  std::string error_of(const std::vector<fs::path>& dirs) {
    try {
      frontend::average_acoustic_models(dirs);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(averaged)";
  }

  fs::path root_;
  frontend::AcousticConfig config_;
  kernels::MelConfig features_;
};

}  // namespace

TEST_F(AcousticModelAverage, IsTheElementWiseMeanOfTheRuns) {
  const std::vector<fs::path> dirs = {save("a", 1, config_), save("b", 2, config_),
                                      save("c", 3, config_)};
  const auto a = values(dirs[0]), b = values(dirs[1]), c = values(dirs[2]);
  const auto average = frontend::average_acoustic_models(dirs);
  const auto& p = average.weights->parameters();
  ASSERT_EQ(p.size(), a.size());
  std::size_t differing = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_NEAR(p.data()[k], (a[k] + b[k] + c[k]) / 3.0f, 1e-6f) << "parameter " << k;
    differing += a[k] != b[k];
  }
  EXPECT_GT(differing, a.size() / 2);  // the runs really differ, so the mean is a new model
  EXPECT_EQ(nlohmann::json(average.weights->config()), nlohmann::json(config_));
}

TEST_F(AcousticModelAverage, OneRunOrARunWithItselfGivesThatRunBackAndTheResultSavesAndLoads) {
  const fs::path a = save("a", 5, config_);
  const auto original = values(a);
  for (const auto& dirs : {std::vector<fs::path>{a}, std::vector<fs::path>{a, a, a}}) {
    const auto average = frontend::average_acoustic_models(dirs);
    frontend::save_acoustic_model(root_ / "out", *average.weights, average.features,
                                  *average.symbols);
    EXPECT_EQ(values(root_ / "out"), original);
  }
}

TEST_F(AcousticModelAverage, RunsOfAnotherCorpusOrArchitectureAreRefusedByName) {
  const fs::path a = save("a", 1, config_);
  auto other_corpus = config_;
  other_corpus.mel_mean += 0.5f;  // another corpus's mel statistics
  const fs::path b = save("other-corpus", 2, other_corpus);
  EXPECT_THAT(error_of({a, b}), HasSubstr("other-corpus"));
  EXPECT_THAT(error_of({a, b}), HasSubstr("mel statistics"));
  auto wider = config_;
  wider.channels = 6;
  EXPECT_THAT(error_of({a, save("wider", 3, wider)}), HasSubstr("wider"));
  EXPECT_THAT(error_of({a, root_ / "missing"}), HasSubstr("missing"));
  EXPECT_THROW(frontend::average_acoustic_models({}), std::invalid_argument);
}

TEST_F(AcousticModelAverage, TheCommandWritesTheAverageAndRefusesMismatchedRunsWithExitCode3) {
  const fs::path a = save("a", 1, config_), b = save("b", 2, config_);
  const std::string tts = std::string(TTS_BINARY_DIR) + "/tools/tts";
  const fs::path out = root_ / "soup";
  ASSERT_EQ(std::system((tts + " train acoustic-average --out " + out.string() + " " + a.string() +
                         " " + b.string() + " 2>/dev/null")
                            .c_str()),
            0);
  const auto mean = frontend::average_acoustic_models({a, b});
  const auto& p = mean.weights->parameters();
  EXPECT_EQ(values(out), std::vector<float>(p.data(), p.data() + p.size()));
  auto other = config_;
  other.mel_std *= 2.0f;
  const int rc =
      std::system((tts + " train acoustic-average --out " + (root_ / "bad").string() + " " +
                   a.string() + " " + save("c", 3, other).string() + " 2>/dev/null")
                      .c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 3);
  EXPECT_FALSE(fs::exists(root_ / "bad"));
}
