// Averaging acoustic models' weights (`tts train acoustic-average`): the element-wise mean of the
// runs, refused (naming the folder) when the runs are not of one architecture and corpus; restating
// a model in other mel statistics; mixing the average with the model the runs started from.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "temp_folder.h"
#include "tiny_acoustic.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/mel_statistics.h"
#include "tts/acoustic/model_average.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;

namespace {

class AcousticModelAverage : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = tts::testing::tiny_acoustic_config();
    config_.symbols = static_cast<int>(frontend::SymbolTable::default_table().size());
    features_.n_mels = config_.n_mels;
  }

  // A model with `config` and weights initialised from `seed`, saved under root_/name.
  fs::path save(const std::string& name, uint64_t seed, const acoustic::AcousticConfig& config) {
    acoustic::AcousticWeights weights(config);
    weights.initialise(seed);
    return save_weights(name, weights);
  }
  fs::path save_weights(const std::string& name, const acoustic::AcousticWeights& weights) {
    acoustic::save_acoustic_model(root_ / name, weights, features_,
                                  frontend::SymbolTable::default_table());
    return root_ / name;
  }
  static std::vector<float> values(const fs::path& dir) {
    const auto files = acoustic::load_acoustic_files(dir);
    const auto& p = files.weights->parameters();
    return {p.data(), p.data() + p.size()};
  }
  std::string error_of(const std::vector<fs::path>& dirs) {
    try {
      acoustic::average_acoustic_models(dirs);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(averaged)";
  }

  testing_support::TempFolder root_;
  acoustic::AcousticConfig config_;
  kernels::MelConfig features_;
};

}  // namespace

TEST_F(AcousticModelAverage, IsTheElementWiseMeanOfTheRuns) {
  const std::vector<fs::path> dirs = {save("a", 1, config_), save("b", 2, config_),
                                      save("c", 3, config_)};
  const auto a = values(dirs[0]), b = values(dirs[1]), c = values(dirs[2]);
  const auto average = acoustic::average_acoustic_models(dirs);
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
    const auto average = acoustic::average_acoustic_models(dirs);
    acoustic::save_acoustic_model(root_ / "out", *average.weights, average.features,
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
  EXPECT_THROW(acoustic::average_acoustic_models({}), std::invalid_argument);
}

TEST_F(AcousticModelAverage, TheCommandWritesTheAverageAndRefusesMismatchedRunsWithExitCode3) {
  const fs::path a = save("a", 1, config_), b = save("b", 2, config_);
  const std::string tts = std::string(TTS_BINARY_DIR) + "/tools/tts";
  const fs::path out = root_ / "soup";
  ASSERT_EQ(std::system((tts + " train acoustic-average --out " + out.string() + " " + a.string() +
                         " " + b.string() + " 2>/dev/null")
                            .c_str()),
            0);
  const auto mean = acoustic::average_acoustic_models({a, b});
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

TEST_F(AcousticModelAverage, RestatingInOtherMelStatisticsPredictsTheSameFramesAndPrior) {
  const fs::path a = save("a", 7, config_);
  const auto original = acoustic::load_acoustic_files(a);
  const acoustic::AcousticWeights restated = acoustic::restated_in_mel_statistics(
      *original.weights, config_.mel_mean + 1.3f, config_.mel_std * 0.6f);
  EXPECT_EQ(restated.config().mel_mean, config_.mel_mean + 1.3f);
  EXPECT_EQ(restated.config().mel_std, config_.mel_std * 0.6f);
  acoustic::save_acoustic_model(root_ / "restated", restated, features_,
                                frontend::SymbolTable::default_table());

  // Synthesis: the same durations and (denormalised) frames.
  const std::vector<int32_t> ids = {1, 12, 30, 7, 3, 45, 19, 2};
  const auto before = acoustic::load_acoustic_model(a)->synthesize(ids, {});
  const auto after = acoustic::load_acoustic_model(root_ / "restated")->synthesize(ids, {});
  EXPECT_EQ(after.durations, before.durations);
  ASSERT_EQ(after.mel.cols(), before.mel.cols());
  ASSERT_GT(before.mel.cols(), 0);
  EXPECT_LT((after.mel - before.mel).cwiseAbs().maxCoeff(), 1e-4f);
  EXPECT_GT((before.mel.array() - before.mel.mean()).abs().maxCoeff(), 0.1f);  // not constant

  // The prior's mel means, denormalised, are the same for any encoder output.
  const auto& layout = restated.layout();
  const kernels::Vector x = kernels::Vector::Random(config_.channels);
  auto prior_means = [&](const acoustic::AcousticWeights& w) -> kernels::Vector {
    const auto& p = w.parameters();
    kernels::Vector z = p.matrix(layout.prior.weight) * x + p.vector(layout.prior.bias);
    return (z.array() * w.config().mel_std + w.config().mel_mean).matrix();
  };
  EXPECT_LT((prior_means(restated) - prior_means(*original.weights)).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_THROW(acoustic::restated_in_mel_statistics(restated, 0.0f, 0.0f), std::invalid_argument);
}

TEST_F(AcousticModelAverage, InterpolationTowardTheBaseMixesTheChosenLayersOnly) {
  auto base_config = config_;
  base_config.mel_mean -= 0.7f;  // the pre-training corpus's statistics
  base_config.mel_std *= 1.4f;
  const fs::path tuned_dir = save("tuned", 1, config_), base_dir = save("base", 2, base_config);
  const auto base = acoustic::load_acoustic_files(base_dir);
  const auto tuned = values(tuned_dir);
  const acoustic::AcousticWeights restated =
      acoustic::restated_in_mel_statistics(*base.weights, config_.mel_mean, config_.mel_std);
  const float* b = restated.parameters().data();

  auto mixed = acoustic::load_acoustic_files(tuned_dir);
  acoustic::interpolate_toward_base(mixed, base, acoustic::MixShares::text_side(0.25));
  EXPECT_EQ(nlohmann::json(mixed.weights->config()), nlohmann::json(config_));
  std::size_t mixed_tensors = 0, kept_tensors = 0;
  for (const auto& entry : mixed.weights->parameters().entries()) {
    const bool text_side = entry.name.rfind("embedding", 0) == 0 ||
                           entry.name.rfind("encoder.", 0) == 0 ||
                           entry.name.rfind("duration.", 0) == 0;
    (text_side ? mixed_tensors : kept_tensors) += 1;
    for (std::size_t k = entry.offset; k < entry.offset + entry.size(); ++k) {
      const float expected = text_side ? 0.75f * tuned[k] + 0.25f * b[k] : tuned[k];
      ASSERT_NEAR(mixed.weights->parameters().data()[k], expected, 1e-6f) << entry.name;
    }
  }
  EXPECT_EQ(mixed_tensors, 1u + 4u * 2 + 4u * 2 + 2u);  // embedding, encoder, duration predictor
  EXPECT_GT(kept_tensors, 0u);

  auto all = acoustic::load_acoustic_files(tuned_dir);
  acoustic::interpolate_toward_base(all, base, acoustic::MixShares{1.0, {}});
  const auto& p = all.weights->parameters();
  EXPECT_EQ(std::vector<float>(p.data(), p.data() + p.size()),
            std::vector<float>(b, b + restated.parameters().size()));

  EXPECT_THROW(acoustic::interpolate_toward_base(all, base, acoustic::MixShares{1.5, {}}),
               std::invalid_argument);
  auto wider = config_;
  wider.channels = 6;
  const auto other = acoustic::load_acoustic_files(save("wider", 3, wider));
  EXPECT_THROW(acoustic::interpolate_toward_base(all, other, acoustic::MixShares{0.5, {}}),
               std::runtime_error);
}

TEST_F(AcousticModelAverage, LayerSharesOverrideTheShareAndTheLongestNameWins) {
  const fs::path tuned_dir = save("tuned", 1, config_), base_dir = save("base", 2, config_);
  const auto base = acoustic::load_acoustic_files(base_dir);
  const auto tuned = values(tuned_dir);
  const float* b = base.weights->parameters().data();

  // Every layer 0.5, the decoder 0.25, its first block 1 (its own name is longer), its input
  // layer, weight and bias, kept.
  const acoustic::MixShares shares{0.5,
                                   {{"decoder", 0.25}, {"decoder.0", 1.0}, {"decoder.input", 0.0}}};
  auto mixed = acoustic::load_acoustic_files(tuned_dir);
  acoustic::interpolate_toward_base(mixed, base, shares);
  std::map<double, int> tensors_by_share;
  for (const auto& entry : mixed.weights->parameters().entries()) {
    double expected_share = 0.5;
    if (entry.name.rfind("decoder.", 0) == 0) expected_share = 0.25;
    if (entry.name.rfind("decoder.0.", 0) == 0) expected_share = 1.0;
    if (entry.name == "decoder.input" || entry.name == "decoder.input_bias") expected_share = 0.0;
    EXPECT_EQ(shares.share_for(entry.name), expected_share) << entry.name;
    ++tensors_by_share[expected_share];
    for (std::size_t k = entry.offset; k < entry.offset + entry.size(); ++k) {
      const double expected = (1.0 - expected_share) * tuned[k] + expected_share * b[k];
      ASSERT_NEAR(mixed.weights->parameters().data()[k], expected, 1e-6) << entry.name;
    }
  }
  EXPECT_EQ(tensors_by_share[0.0], 2);  // decoder.input and decoder.input_bias
  EXPECT_EQ(tensors_by_share[1.0], 4);  // decoder.0's conv, bias, norm scale and bias
  EXPECT_GT(tensors_by_share[0.25], 0);
  EXPECT_GT(tensors_by_share[0.5], 0);
  // "decoder.1" is not "decoder.10"'s layer, nor "decoder" "decoderx"'s.
  EXPECT_EQ((acoustic::MixShares{0.5, {{"decoder.1", 0.0}}}.share_for("decoder.10.conv")), 0.5);
  EXPECT_EQ((acoustic::MixShares{0.5, {{"decoder", 0.0}}}.share_for("decoderx")), 0.5);

  auto untouched = acoustic::load_acoustic_files(tuned_dir);
  EXPECT_THROW(acoustic::interpolate_toward_base(untouched, base,
                                                 acoustic::MixShares{0.5, {{"decodr", 0.1}}}),
               std::invalid_argument);  // names no tensor: a typo must not mix nothing silently
  EXPECT_THROW(acoustic::interpolate_toward_base(untouched, base,
                                                 acoustic::MixShares{0.5, {{"decoder", -0.1}}}),
               std::invalid_argument);
  EXPECT_EQ(values(tuned_dir), tuned);
}

TEST_F(AcousticModelAverage, TheCommandMixesTheAverageWithTheBase) {
  auto base_config = config_;
  base_config.mel_mean += 0.4f;
  const fs::path a = save("a", 1, config_), b = save("b", 2, config_);
  const fs::path base = save("base", 3, base_config);
  const std::string tts = std::string(TTS_BINARY_DIR) + "/tools/tts";
  const fs::path out = root_ / "wise";
  ASSERT_EQ(std::system((tts + " train acoustic-average --out " + out.string() + " " + a.string() +
                         " " + b.string() + " --base " + base.string() +
                         " --base-share 0.2 --base-layers text 2>/dev/null")
                            .c_str()),
            0);
  auto expected = acoustic::average_acoustic_models({a, b});
  acoustic::interpolate_toward_base(expected, acoustic::load_acoustic_files(base),
                                    acoustic::MixShares::text_side(0.2));
  const auto& p = expected.weights->parameters();
  EXPECT_EQ(values(out), std::vector<float>(p.data(), p.data() + p.size()));
  const fs::path layered = root_ / "layered";
  ASSERT_EQ(std::system((tts + " train acoustic-average --out " + layered.string() + " " +
                         a.string() + " " + b.string() + " --base " + base.string() +
                         " --base-share 0.3 --layer-share decoder=0.6 --layer-share "
                         "decoder.output=0 2>/dev/null")
                            .c_str()),
            0);
  auto expected_layered = acoustic::average_acoustic_models({a, b});
  acoustic::interpolate_toward_base(
      expected_layered, acoustic::load_acoustic_files(base),
      acoustic::MixShares{0.3, {{"decoder", 0.6}, {"decoder.output", 0.0}}});
  const auto& q = expected_layered.weights->parameters();
  EXPECT_EQ(values(layered), std::vector<float>(q.data(), q.data() + q.size()));
  // Malformed shares are usage errors (2); a layer the model lacks is found on loading it (3).
  for (const char* bad : {"decoder", "decoder=x", "=0.2", "decoder=1.5", "decodr=0.2"}) {
    const fs::path none = root_ / "none";
    const int status = std::system((tts + " train acoustic-average --out " + none.string() + " " +
                                    a.string() + " --base " + base.string() +
                                    " --base-share 0.3 --layer-share " + bad + " 2>/dev/null")
                                       .c_str());
    EXPECT_EQ(WEXITSTATUS(status), std::string(bad) == "decodr=0.2" ? 3 : 2) << bad;
    EXPECT_FALSE(fs::exists(none)) << bad;
  }
  const int rc = std::system((tts + " train acoustic-average --out " + (root_ / "bad").string() +
                              " " + a.string() + " --base-share 0.2 2>/dev/null")
                                 .c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);  // a share without a base is a usage error
  EXPECT_FALSE(fs::exists(root_ / "bad"));
}

// The recipe keeps her speaker vector as fine-tuned (`--layer-share speaker=0`) when the base has
// several speakers: the speaker embedding stays the tuned model's, bit for bit, while every other
// tensor mixes; a model of one speaker has no such tensor, and the name is refused.
TEST_F(AcousticModelAverage, ASpeakerShareOfZeroKeepsTheTunedSpeakerVectors) {
  acoustic::AcousticConfig speakers = config_;
  speakers.speakers = 4;
  // Speaker vectors start at zero: give each model its own, as training would.
  const auto save_speakers = [&](const std::string& name, uint64_t seed) {
    acoustic::AcousticWeights weights(speakers);
    weights.initialise(seed);
    auto& p = weights.parameters();
    const auto& entry = p.entries().at(static_cast<std::size_t>(p.index_of("speaker.embedding")));
    for (std::size_t k = 0; k < entry.size(); ++k)
      p.data()[entry.offset + k] = 0.01f * static_cast<float>(seed * 7 + k % 13);
    return save_weights(name, weights);
  };
  const fs::path tuned_dir = save_speakers("tuned", 1), base_dir = save_speakers("base", 2);
  const auto base = acoustic::load_acoustic_files(base_dir);
  const auto tuned = values(tuned_dir);
  const float* b = base.weights->parameters().data();
  auto mixed = acoustic::load_acoustic_files(tuned_dir);
  acoustic::interpolate_toward_base(mixed, base, acoustic::MixShares{0.5, {{"speaker", 0.0}}});
  const auto& p = mixed.weights->parameters();
  bool saw_speaker = false;
  for (const auto& entry : p.entries()) {
    const bool speaker = entry.name == "speaker.embedding";
    saw_speaker = saw_speaker || speaker;
    for (std::size_t k = entry.offset; k < entry.offset + entry.size(); ++k) {
      const double expected = speaker ? tuned[k] : 0.5 * tuned[k] + 0.5 * b[k];
      ASSERT_NEAR(p.data()[k], expected, 1e-6) << entry.name;
      if (speaker) {
        ASSERT_NE(tuned[k], b[k]) << "the two models' speaker vectors differ";
      }
    }
  }
  EXPECT_TRUE(saw_speaker);

  const fs::path single_dir = save("single", 3, config_);
  auto single = acoustic::load_acoustic_files(single_dir);
  EXPECT_THROW(acoustic::interpolate_toward_base(single, acoustic::load_acoustic_files(single_dir),
                                                 acoustic::MixShares{0.5, {{"speaker", 0.0}}}),
               std::invalid_argument);
}
