// `tts train score-acoustic` (train/acoustic/acoustic_score.cpp): an acoustic model's held-out
// likeness to recordings, checked against the aligned frames of `tts train aligned-mels`, the
// public synthesis interface and a by-hand duration error, on real recorded speech.
#include "tts/train/acoustic_score.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "alsa_acoustic_corpus.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/audio_corpus.h"
#include "tts/train/predicted_mels.h"

namespace fs = std::filesystem;
using namespace tts;

using AcousticScore = testing_support::AlsaAcousticCorpusTest;

TEST_F(AcousticScore, AgreesWithAlignedMelsAndSynthesisAndNamesMissingIds) {
  auto o = options("model", 120);
  o.ema_decay = 0.0f;
  train::train_acoustic(o, log_);
  auto early = options("early", 5);
  early.ema_decay = 0.0f;
  train::train_acoustic(early, log_);
  train::AlignedMelOptions a;
  a.model_dir = root_ / "model";
  a.data_dir = root_ / "data";
  a.out_dir = root_ / "aligned";
  ASSERT_EQ(train::write_aligned_mels(a, log_), 6);

  // Reference: the aligned frames' mean |error| against the recordings, and the frames that
  // synthesis through the public model interface makes for each transcript.
  train::AudioCorpusOptions corpus_options;
  corpus_options.features = o.features;
  train::AudioCorpus corpus = train::load_audio_corpus(root_ / "data", corpus_options);
  std::vector<train::AudioUtterance> all = corpus.training;
  all.insert(all.end(), corpus.validation.begin(), corpus.validation.end());
  std::vector<std::string> warnings;
  ASSERT_EQ(train::attach_predicted_mels(all, a.out_dir, warnings), 6);
  const auto model = acoustic::load_acoustic_model(root_ / "model");
  const frontend::TextPipeline text;
  double error_sum = 0.0, front_left_error = 0.0;
  int64_t frames = 0, synthesized = 0;
  for (const auto& u : all) {
    const double error = (u.predicted_mel - u.mel).cwiseAbs().sum();
    error_sum += error;
    frames += u.mel.cols();
    if (u.id == "Front_Left") front_left_error = error / static_cast<double>(u.mel.size());
    const auto ids = text.process_sentence(u.text).ids;
    synthesized += model->synthesize(std::vector<int32_t>(ids.begin(), ids.end()), {}).mel.cols();
  }

  train::AcousticScoreOptions s;
  s.model_dir = root_ / "model";
  s.data_dir = root_ / "data";
  const train::AcousticScore score = train::score_acoustic_model(s, log_);
  EXPECT_EQ(score.utterances, 6);
  EXPECT_EQ(score.frames, frames);
  EXPECT_NEAR(score.aligned_mel_l1, error_sum / static_cast<double>(frames * o.features.n_mels),
              1e-5);
  EXPECT_EQ(score.synthesized_frames, synthesized);
  EXPECT_DOUBLE_EQ(score.length_ratio(),
                   static_cast<double>(synthesized) / static_cast<double>(frames));
  // Each recording's own score, in the order scored; their frame-weighted mean is the whole's.
  ASSERT_EQ(score.per_utterance.size(), 6u);
  double weighted = 0.0;
  for (const train::UtteranceScore& u : score.per_utterance) {
    weighted += u.aligned_mel_l1 * u.frames;
    EXPECT_GT(u.prior_nll, 0.0);
    if (u.id == "Front_Left") {
      EXPECT_NEAR(u.aligned_mel_l1, front_left_error, 1e-5);
    }
  }
  EXPECT_NEAR(weighted / static_cast<double>(frames), score.aligned_mel_l1, 1e-6);
  // Those the trainer keeps out of training to validate on are marked.
  std::set<std::string> validation, marked;
  for (const auto& u : corpus.validation) validation.insert(u.id);
  for (const train::UtteranceScore& u : score.per_utterance)
    if (u.validation) marked.insert(u.id);
  EXPECT_FALSE(validation.empty());
  EXPECT_EQ(marked, validation);

  // The timing error by hand: the duration predictor's log(1 + frames) against the aligner's,
  // per phone that sounds, with the aligner set up as `tts train aligned-mels` sets it.
  const auto files = acoustic::load_acoustic_files(root_ / "model");
  train::AcousticCorpus acoustic =
      train::load_acoustic_corpus(root_ / "data", files.features, "en-us");
  auto utterances = acoustic.training;
  utterances.insert(utterances.end(), acoustic.validation.begin(), acoustic.validation.end());
  acoustic::AcousticLossSettings settings;
  settings.symbol_timings = files.symbols->timings();
  settings.alignment_channel_weights =
      train::alignment_channel_weights(utterances, files.weights->config());
  acoustic::AcousticPass pass(*files.weights, settings);
  double log_error = 0.0;
  int sounding = 0;
  for (std::size_t i = 0; i < utterances.size(); ++i) {
    pass.forward(train::pack_utterances(utterances, i, 1));
    for (std::size_t k = 0; k < utterances[i].ids.size(); ++k) {
      if (settings.symbol_timings[static_cast<std::size_t>(utterances[i].ids[k])] !=
          frontend::SymbolTiming::kSounds)
        continue;
      log_error += std::abs(pass.log_durations()(0, static_cast<Eigen::Index>(k)) -
                            std::log(1.0 + pass.durations()[k]));
      ++sounding;
    }
  }
  ASSERT_GT(sounding, 0);
  EXPECT_NEAR(score.log_duration_l1, log_error / sounding, 1e-6);

  // One recording scores as it does among all of them.
  s.ids = {"Front_Left"};
  const train::AcousticScore one = train::score_acoustic_model(s, log_);
  EXPECT_EQ(one.utterances, 1);
  EXPECT_NEAR(one.aligned_mel_l1, front_left_error, 1e-5);

  // A model 5 steps into training is further from the recordings than one 120 steps in.
  s.ids = {};
  s.model_dir = root_ / "early";
  const train::AcousticScore early_score = train::score_acoustic_model(s, log_);
  EXPECT_GT(early_score.aligned_mel_l1, score.aligned_mel_l1);
  EXPECT_GT(early_score.log_duration_l1, score.log_duration_l1);

  // Ids the corpus lacks are all named; nothing is scored without them.
  s.ids = {"Front_Left", "Nowhere", "Side_Centre"};
  try {
    train::score_acoustic_model(s, log_);
    ADD_FAILURE() << "missing ids were not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("Nowhere, Side_Centre"));
  }

  // The command prints the same score as one JSON line; an id list may hold comments and blank
  // lines; a missing id is bad input (exit 3), named on stderr.
  const std::string tts = std::string(TTS_BINARY_DIR) + "/tools/tts";
  std::ofstream(root_ / "ids.txt") << "# held out\n\nFront_Left\n";
  const std::string command = tts + " train score-acoustic --model " + (root_ / "model").string() +
                              " --data " + (root_ / "data").string() + " --ids " +
                              (root_ / "ids.txt").string();
  ASSERT_EQ(
      std::system((command + " > " + (root_ / "score.json").string() + " 2>/dev/null").c_str()), 0);
  std::ifstream json_in(root_ / "score.json");
  const auto json = nlohmann::json::parse(json_in);
  EXPECT_EQ(json.at("utterances").get<int>(), 1);
  EXPECT_DOUBLE_EQ(json.at("aligned_mel_l1").get<double>(), one.aligned_mel_l1);
  EXPECT_DOUBLE_EQ(json.at("length_ratio").get<double>(), one.length_ratio());
  std::ofstream(root_ / "ids.txt") << "Front_Left\nNowhere\n";
  const int rc = std::system((command + " > /dev/null 2> " + (root_ / "err.txt").string()).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 3);
  std::ifstream err_in(root_ / "err.txt");
  const std::string err((std::istreambuf_iterator<char>(err_in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(err, ::testing::HasSubstr("Nowhere"));
}
