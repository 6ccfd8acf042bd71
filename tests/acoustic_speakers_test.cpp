// An acoustic model of several speakers: the speaker embedding's gradient, what a speaker changes
// and what it must not, balanced batches, the voice file (format_version 4), and training one
// started from a model of one speaker and one of several fine-tuned on one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "alsa_acoustic_corpus.h"
#include "temp_folder.h"
#include "tiny_acoustic.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/frontend/symbol_table.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/acoustic_trainer.h"

namespace fs = std::filesystem;
using namespace tts;
using kernels::Matrix;

namespace {

acoustic::AcousticConfig speakers_config(int speakers) {
  acoustic::AcousticConfig c = tts::testing::tiny_acoustic_config();
  c.speakers = speakers;
  return c;
}

void randomise(kernels::ParameterSet& p, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  for (std::size_t k = 0; k < p.size(); ++k) p.data()[k] += normal(rng);
}

// Central differences of the total loss against every value of tensor `name`; returns the
// normalised error of the analytic gradient.
double gradient_error(acoustic::AcousticWeights& w, const acoustic::AcousticBatch& batch,
                      const std::vector<int>& durations, const std::string& name) {
  acoustic::AcousticLossSettings settings;
  settings.l1_mel = false;  // smooth, so differences need no allowance for kinks
  acoustic::AcousticPass pass(w, settings);
  pass.forward(batch, durations);
  kernels::ParameterSet grads = w.parameters().zeros_like();
  pass.backward(grads);
  const auto& e =
      w.parameters().entries().at(static_cast<std::size_t>(w.parameters().index_of(name)));
  float* values = w.parameters().data() + e.offset;
  const float* analytic = grads.data() + e.offset;
  const float eps = 3e-3f;  // as the one-speaker network test: small enough to miss most ReLU kinks
  double diff2 = 0.0, norm2 = 0.0;
  for (std::size_t k = 0; k < e.size(); ++k) {
    const float saved = values[k];
    values[k] = saved + eps;
    const double up = acoustic::AcousticPass(w, settings).forward(batch, durations).total;
    values[k] = saved - eps;
    const double down = acoustic::AcousticPass(w, settings).forward(batch, durations).total;
    values[k] = saved;
    const double numeric = (up - down) / (2.0 * eps);
    diff2 += (numeric - analytic[k]) * (numeric - analytic[k]);
    norm2 += numeric * numeric;
  }
  EXPECT_GT(norm2, 1e-12) << name << ": the loss does not depend on it";
  return std::sqrt(diff2 / std::max(norm2, 1e-30));
}

}  // namespace

TEST(AcousticSpeakers, EveryTensorMatchesFiniteDifferences) {
  acoustic::AcousticWeights w(speakers_config(3));
  w.initialise(7);
  randomise(w.parameters(), 3);
  std::vector<int> durations;
  acoustic::AcousticBatch batch =
      tts::testing::random_acoustic_batch(w.config(), {4, 1, 3}, 11, durations);
  batch.speakers = {2, 0, 2};  // speaker 1 is in no utterance: its column's gradient is zero
  for (const auto& e : w.parameters().entries())  // speaker.embedding among them
    EXPECT_LT(gradient_error(w, batch, durations, e.name), 2e-2) << e.name;
  acoustic::AcousticPass pass(w);
  pass.forward(batch, durations);
  kernels::ParameterSet grads = w.parameters().zeros_like();
  pass.backward(grads);
  const auto table = grads.matrix(w.layout().speaker_embedding);
  EXPECT_EQ(table.col(1).norm(), 0.0f);
  EXPECT_GT(table.col(0).norm(), 0.0f);
  EXPECT_GT(table.col(2).norm(), 0.0f);
}

TEST(AcousticSpeakers, ZeroVectorsSpeakAsTheOneSpeakerModelAndTrainedOnesDiffer) {
  acoustic::AcousticWeights one(speakers_config(1)), two(speakers_config(2));
  one.initialise(5);
  two.initialise(5);
  // The same weights but for the (zero) speaker table: init-from a model of one speaker.
  for (const auto& e : one.parameters().entries())
    two.parameters().matrix(two.parameters().index_of(e.name)) =
        one.parameters().matrix(one.parameters().index_of(e.name));
  const std::vector<int32_t> ids = {1, 3, 2, 5, 4, 1};
  std::vector<int> d1, d2;
  Matrix m1, m2;
  acoustic::AcousticPass(one).synthesize(ids, 1.0f, d1, m1);
  acoustic::AcousticPass(two).synthesize(ids, 1.0f, d2, m2);
  EXPECT_EQ(d1, d2);
  EXPECT_EQ(m1, m2);

  randomise(two.parameters(), 9);
  std::vector<int> durations;
  acoustic::AcousticBatch batch =
      tts::testing::random_acoustic_batch(two.config(), {6}, 4, durations);
  acoustic::AcousticPass pass(two);
  batch.speakers = {0};
  pass.forward(batch, durations);
  const Matrix as_0 = pass.predicted_mel();
  batch.speakers = {1};
  pass.forward(batch, durations);
  EXPECT_GT((pass.predicted_mel() - as_0).norm(), 1e-3 * as_0.norm());
  // Synthesis speaks as config.speaker; an empty list means that speaker too.
  batch.speakers.clear();
  pass.forward(batch, durations);
  EXPECT_EQ(pass.predicted_mel(), as_0);
}

TEST(AcousticSpeakers, PackedSpeakersEqualUtterancesOneByOne) {
  acoustic::AcousticWeights w(speakers_config(2));
  w.initialise(9);
  randomise(w.parameters(), 2);
  std::vector<int> durations;
  acoustic::AcousticBatch batch =
      tts::testing::random_acoustic_batch(w.config(), {4, 6}, 2, durations);
  batch.speakers = {1, 0};
  acoustic::AcousticPass pass(w);
  pass.forward(batch, durations);
  const Matrix packed = pass.predicted_mel();
  const int frames0 = batch.frame_lengths[0], frames1 = batch.frame_lengths[1];
  acoustic::AcousticBatch second;
  second.ids.assign(batch.ids.begin() + 4, batch.ids.end());
  second.token_lengths = {6};
  second.frame_lengths = {frames1};
  second.mel = batch.mel.rightCols(frames1);
  second.log_f0 = batch.log_f0.rightCols(frames1);
  second.log_energy = batch.log_energy.rightCols(frames1);
  second.speakers = {0};
  acoustic::AcousticPass single(w);
  single.forward(second, std::vector<int>(durations.begin() + 4, durations.end()));
  EXPECT_LT((single.predicted_mel() - packed.rightCols(frames1)).norm(),
            1e-5 * packed.rightCols(frames1).norm());
  second.speakers = {1};
  single.forward(second, std::vector<int>(durations.begin() + 4, durations.end()));
  EXPECT_GT((single.predicted_mel() - packed.rightCols(frames1)).norm(),
            1e-3 * packed.rightCols(frames1).norm());
  EXPECT_EQ(packed.cols(), frames0 + frames1);
}

TEST(AcousticSpeakers, SpeakersOutsideTheModelAreRefused) {
  acoustic::AcousticWeights w(speakers_config(2));
  w.initialise(1);
  std::vector<int> durations;
  acoustic::AcousticBatch batch =
      tts::testing::random_acoustic_batch(w.config(), {3, 2}, 1, durations);
  acoustic::AcousticPass pass(w);
  batch.speakers = {0, 2};
  EXPECT_THROW(
      {
        try {
          pass.forward(batch, durations);
        } catch (const std::invalid_argument& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr("speaker 2"));
          throw;
        }
      },
      std::invalid_argument);
  batch.speakers = {0};
  EXPECT_THROW(pass.forward(batch, durations), std::invalid_argument);
  acoustic::AcousticConfig bad = speakers_config(2);
  bad.speaker = 2;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
}

TEST(AcousticSpeakers, BalancedBatchesGiveEverySpeakerItsShareAndRepeat) {
  std::vector<train::AcousticUtterance> utterances;
  for (int k = 0; k < 20; ++k) {
    train::AcousticUtterance u;
    u.id = "u" + std::to_string(k);
    u.ids = {1, static_cast<int32_t>(2 + k % 3), 1};
    u.mel = Matrix::Constant(3, 4 + k, static_cast<float>(k));
    u.log_f0 = Matrix::Constant(1, 4 + k, 5.0f);
    u.log_energy = Matrix::Zero(1, 4 + k);
    u.speaker = k < 3 ? 1 : 0;  // 3 recordings of speaker 1 beside 17 of speaker 0
    utterances.push_back(std::move(u));
  }
  const auto a = train::make_speaker_balanced_batch(utterances, 2, 8, 3, 7);
  EXPECT_EQ(a.speakers, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
  const auto b = train::make_speaker_balanced_batch(utterances, 2, 8, 3, 7);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.mel, b.mel);
  bool differs = false;
  for (int64_t index = 8; index < 12; ++index)
    differs =
        differs || train::make_speaker_balanced_batch(utterances, 2, 8, 3, index).frame_lengths !=
                       a.frame_lengths;
  EXPECT_TRUE(differs);
  EXPECT_THROW(train::make_speaker_balanced_batch(utterances, 3, 8, 3, 7), std::invalid_argument);
  // Contours that are not frame-aligned with the mels are refused, naming the utterance (they
  // used to be copied out of bounds).
  utterances[5].log_f0.resize(1, 0);
  try {
    train::pack_utterances(utterances, 4, 3);
    FAIL() << "an utterance without pitch frames was packed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("u5"), std::string::npos) << e.what();
  }
}

TEST(AcousticSpeakers, ModelFilesOfSeveralSpeakersAreVersion4AndRoundTrip) {
  const testing_support::TempFolder folder;
  const fs::path dir = folder / "model";
  const frontend::SymbolTable& symbols = frontend::SymbolTable::default_table();
  acoustic::AcousticConfig c = speakers_config(3);
  c.symbols = static_cast<int>(symbols.size());
  c.n_mels = kernels::MelConfig{}.n_mels;
  c.speaker = 2;
  acoustic::AcousticWeights w(c);
  w.initialise(3);
  randomise(w.parameters(), 4);
  acoustic::save_acoustic_model(dir, w, kernels::MelConfig{}, symbols);
  nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "acoustic.json"));
  EXPECT_EQ(j["format_version"], acoustic::kAcousticFormatVersionWithSpeakers);
  EXPECT_EQ(j["acoustic"]["speakers"], 3);
  const acoustic::AcousticModelFiles loaded = acoustic::load_acoustic_files(dir);
  EXPECT_EQ(loaded.weights->config().speakers, 3);
  EXPECT_EQ(loaded.weights->config().speaker, 2);
  EXPECT_EQ(loaded.weights->parameters().matrix(loaded.weights->layout().speaker_embedding),
            w.parameters().matrix(w.layout().speaker_embedding));
  // A model of several speakers without pitch and energy says so, and reads back without them.
  acoustic::AcousticConfig plain = c;
  plain.pitch_energy = false;
  acoustic::AcousticWeights p(plain);
  p.initialise(5);
  acoustic::save_acoustic_model(dir, p, kernels::MelConfig{}, symbols);
  const acoustic::AcousticModelFiles plain_loaded = acoustic::load_acoustic_files(dir);
  EXPECT_FALSE(plain_loaded.weights->config().pitch_energy);
  ASSERT_EQ(plain_loaded.weights->parameters().size(), p.parameters().size());
  EXPECT_TRUE(std::equal(p.parameters().data(), p.parameters().data() + p.parameters().size(),
                         plain_loaded.weights->parameters().data()))
      << "the weights did not read back as written";
  acoustic::save_acoustic_model(dir, w, kernels::MelConfig{}, symbols);
  // A version 3 file claiming speakers is refused, saying why.
  j["format_version"] = acoustic::kAcousticFormatVersion;
  std::ofstream(dir / "acoustic.json") << j.dump();
  try {
    acoustic::load_acoustic_files(dir);
    ADD_FAILURE() << "a version 3 file with speakers was read";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("predates \"speakers\""));
  }
}

using AcousticSpeakersTraining = testing_support::AlsaAcousticCorpusTest;

// Another speaker's recordings beside the voice's own, started from a model of one speaker: the
// run takes its weights over, learns a vector per speaker, and exports a model that speaks as
// --data's speaker; resumed, it ends where an uninterrupted run does.
TEST_F(AcousticSpeakersTraining, TrainsBesideAnotherSpeakerFromAOneSpeakerModel) {
  // The other "speaker": four of the same clips under other names. The test is of the plumbing
  // (corpora, balanced batches, init-from, export, resume), which any second corpus exercises.
  fs::create_directories(root_ / "other" / "wavs");
  std::ofstream meta(root_ / "other" / "metadata.csv");
  for (const char* name : {"Front_Left", "Rear_Right", "Side_Left", "Front_Center"}) {
    fs::copy_file(root_ / "data" / "wavs" / (std::string(name) + ".wav"),
                  root_ / "other" / "wavs" / (std::string("o_") + name + ".wav"));
    std::string text = name;
    text[text.find('_')] = ' ';
    meta << "o_" << name << "|" << text << "\n";
  }
  meta.close();
  train::train_acoustic(options("base", 4), log_);

  auto joint = options("joint", 8);
  joint.other_speaker_dirs = {root_ / "other"};
  joint.init_from = root_ / "base";
  joint.architecture_from_init = true;
  train::train_acoustic(joint, log_);
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("speaker 1: "));
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("the speaker embedding starts at zero"));
  const acoustic::AcousticModelFiles model = acoustic::load_acoustic_files(root_ / "joint");
  ASSERT_EQ(model.weights->config().speakers, 2);
  EXPECT_EQ(model.weights->config().speaker, 0);
  const auto table = model.weights->parameters().matrix(model.weights->layout().speaker_embedding);
  EXPECT_GT((table.col(0) - table.col(1)).norm(), 0.0f) << "the speakers were not told apart";
  const acoustic::AcousticModelFiles base = acoustic::load_acoustic_files(root_ / "base");
  EXPECT_EQ(base.weights->config().speakers, 1);

  // Resume from the step-5 checkpoint's run: 5 steps, then 3 more, as one run of 8.
  auto first = options("resumed", 5);
  first.other_speaker_dirs = joint.other_speaker_dirs;
  first.init_from = joint.init_from;
  first.architecture_from_init = true;
  train::train_acoustic(first, log_);
  auto rest = first;
  rest.steps = 8;
  rest.resume = true;
  train::train_acoustic(rest, log_);
  const acoustic::AcousticModelFiles resumed = acoustic::load_acoustic_files(root_ / "resumed");
  EXPECT_EQ(resumed.weights->parameters().matrix(0), model.weights->parameters().matrix(0));
  EXPECT_EQ(resumed.weights->parameters().matrix(resumed.weights->layout().speaker_embedding),
            table);

  // Fine-tuned on --data alone, the model of two speakers keeps both: speaker 0's vector learns,
  // speaker 1's, in no batch, stays exactly as it was.
  auto adapted = options("adapted", 3);
  adapted.init_from = root_ / "joint";
  adapted.architecture_from_init = true;
  train::train_acoustic(adapted, log_);
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("keeps the 2 speakers"));
  const acoustic::AcousticModelFiles one = acoustic::load_acoustic_files(root_ / "adapted");
  ASSERT_EQ(one.weights->config().speakers, 2);
  const auto after = one.weights->parameters().matrix(one.weights->layout().speaker_embedding);
  EXPECT_EQ(after.col(1), table.col(1));
  EXPECT_GT((after.col(0) - table.col(0)).norm(), 0.0f);
}

// More recordings of the voice's own speaker in another language (DIR:LANG on the command line):
// each folder's transcripts are phonemised in its own language, and all of them train speaker 0.
TEST_F(AcousticSpeakersTraining, PhonemisesEachFolderInItsOwnLanguage) {
  fs::create_directories(root_ / "more" / "wavs");
  std::ofstream meta(root_ / "more" / "metadata.csv");
  const std::map<std::string, std::string> texts = {{"m_Front_Left", "Delante a la izquierda"},
                                                    {"m_Rear_Right", "Detrás a la derecha"},
                                                    {"m_Side_Left", "Al lado izquierdo"}};
  for (const auto& [id, text] : texts) {
    fs::copy_file(root_ / "data" / "wavs" / (id.substr(2) + ".wav"),
                  root_ / "more" / "wavs" / (id + ".wav"));
    meta << id << "|" << text << "\n";
  }
  meta.close();
  auto o = options("bilingual", 2);
  o.language = "en-us";
  o.more_data_dirs = {root_ / "more"};
  o.folder_languages[root_ / "more"] = "es-419";
  o.alignments_file = root_ / "alignments.tsv";
  train::train_acoustic(o, log_);
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("(es-419)"));
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("speaker 0: "));
  EXPECT_EQ(acoustic::load_acoustic_files(root_ / "bilingual").weights->config().speakers, 1);

  const frontend::TextPipeline spanish("es-419"), english("en-us");
  std::ifstream tsv(root_ / "alignments.tsv");
  std::string line;
  std::size_t spanish_rows = 0, english_rows = 0;
  while (std::getline(tsv, line)) {
    std::istringstream fields(line);
    std::string id, ids_text;
    std::getline(fields, id, '\t');
    std::getline(fields, ids_text, '\t');
    std::vector<int> ids;
    std::istringstream numbers(ids_text);
    for (int v; numbers >> v;) ids.push_back(v);
    const auto spanish_text = texts.find(id);
    if (spanish_text != texts.end()) {
      ++spanish_rows;
      EXPECT_EQ(ids, spanish.process_sentence(spanish_text->second).ids) << id;
      EXPECT_NE(ids, english.process_sentence(spanish_text->second).ids) << id;
    } else {
      ++english_rows;
      std::string text = id;
      text[text.find('_')] = ' ';
      EXPECT_EQ(ids, english.process_sentence(text).ids) << id;
    }
  }
  EXPECT_EQ(spanish_rows, texts.size());
  EXPECT_EQ(english_rows, 6u);
}
