// Training the vocoder end to end on real recorded speech: it learns, resumes exactly, starts from
// an exported model, and names the corpus rows and files it cannot use. (Its checkpoints' safety:
// vocoder_checkpoint_test.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_tts.h"
#include "temp_folder.h"
#include "tts/audio/audio_file.h"
#include "tts/kernels/device.h"
#include "tts/train/crop_batches.h"
#include "tts/train/vocoder_trainer.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/teacher_forced.h"
#include "vocoder_training_fixture.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;
using tts::testing_support::tensor_bytes;
using tts::testing_support::VocoderTraining;

namespace {

const fs::path kClip = "/usr/share/sounds/alsa/Front_Center.wav";  // alsa-utils: a real voice

}  // namespace

TEST_F(VocoderTraining, TinyModelOverfitsAShortRealClip) {
  auto o = options("out", 300);
  o.ema_decay = 0.9f;
  o.log_every = 50;
  o.checkpoint_every = 300;
  train::train_vocoder(o, log_);

  const vocoder::VocoderModel model = vocoder::load_vocoder(o.out_dir);
  train::AudioCorpusOptions corpus_options;
  corpus_options.features = o.features;
  const train::AudioCorpus corpus = train::load_audio_corpus(o.data_dir, corpus_options);
  const train::CropOptions crops{8, 2000, o.config.hop_length, o.config.classes};
  vocoder::WaveNetWeights untrained(o.config);
  untrained.initialise(o.seed);
  double before = 0.0, after = 0.0;
  for (int i = 0; i < 3; ++i) {
    const vocoder::Batch batch = train::make_crop_batch(corpus.training, crops, 1234, i);
    before += vocoder::TeacherForcedPass(untrained).forward(batch) / 3;
    after += vocoder::TeacherForcedPass(*model.weights).forward(batch) / 3;
  }
  // The entropy of the clip's class histogram is the loss of a model that learned nothing about
  // context; a WaveNet that learned the waveform must beat it clearly.
  std::vector<double> histogram(o.config.classes, 0.0);
  const auto& classes = corpus.training.front().classes;
  for (int32_t c : classes) histogram[c] += 1.0 / static_cast<double>(classes.size());
  double marginal_entropy = 0.0;
  for (double p : histogram)
    if (p > 0) marginal_entropy -= p * std::log(p);
  EXPECT_GT(before, 5.0);  // ≈ ln 256: an untrained model knows nothing
  EXPECT_LT(after, marginal_entropy - 0.5) << "marginal entropy " << marginal_entropy << "\n"
                                           << log_.str();
}

TEST_F(VocoderTraining, ResumedRunEndsWithIdenticalWeights) {
  train::train_vocoder(options("straight", 10), log_);
  train::train_vocoder(options("interrupted", 5), log_);
  auto resumed = options("interrupted", 10);
  resumed.resume = true;
  const auto summary = train::train_vocoder(resumed, log_);
  EXPECT_EQ(summary.first_step, 5);
  EXPECT_EQ(summary.last_step, 10);
  const auto a = tensor_bytes(root_ / "straight"), b = tensor_bytes(root_ / "interrupted");
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << "weights, EMA and Adam moments must match bit for bit";
  // And a different seed really gives different weights (the comparison can fail).
  auto other = options("other", 10);
  other.seed = 2;
  train::train_vocoder(other, log_);
  EXPECT_FALSE(tensor_bytes(root_ / "other") == a);
}

TEST_F(VocoderTraining, UnusableDeviceOrPrecisionIsRefusedBeforeAnyWork) {
  auto bf16_on_cpu = options("out", 2);
  bf16_on_cpu.device.precision = kernels::GemmPrecision::kBf16;
  try {
    train::train_vocoder(bf16_on_cpu, log_);
    FAIL() << "bf16 on the CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--device cuda"));
  }
  EXPECT_FALSE(fs::exists(root_ / "out")) << "nothing is written before the device is usable";
  if (kernels::cuda_device_count() == 0) {  // here (and in CI): cuda must be refused, saying why
    auto cuda = options("out", 2);
    cuda.device.device = kernels::Device::kCuda;
    try {
      train::train_vocoder(cuda, log_);
      FAIL() << "--device cuda was accepted without a GPU";
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), HasSubstr("cuda"));
    }
    EXPECT_FALSE(fs::exists(root_ / "out"));
  }
}

// Fine-tuning: a run started from an exported model begins at its weights (with a fresh optimiser
// and its own step count), takes its architecture unless told otherwise, and refuses one that
// disagrees with the architecture it was given.
TEST_F(VocoderTraining, InitFromStartsAtAnExportedModelsWeights) {
  train::train_vocoder(options("base", 10), log_);
  const vocoder::VocoderModel base = vocoder::load_vocoder(root_ / "base");
  auto tuned = options("tuned", 1);
  tuned.init_from = root_ / "base";
  tuned.architecture_from_init = true;
  tuned.config = vocoder::WaveNetConfig{};  // the default, larger shape: replaced by base's
  tuned.adam.learning_rate = 1e-9f;         // so that one step leaves the weights where they were
  tuned.warmup_steps = 0;
  tuned.seed = 99;  // base's is 1: a random start would be far from base's weights
  const train::VocoderTrainingSummary summary = train::train_vocoder(tuned, log_);
  EXPECT_EQ(summary.first_step, 0);
  EXPECT_EQ(summary.last_step, 1);
  EXPECT_NE(log_.str().find("starting from the weights of"), std::string::npos);
  const vocoder::VocoderModel after = vocoder::load_vocoder(root_ / "tuned");
  ASSERT_EQ(after.weights->parameters().size(), base.weights->parameters().size());
  double diff = 0.0, norm = 0.0;
  for (std::size_t k = 0; k < base.weights->parameters().size(); ++k) {
    const double b = base.weights->parameters().data()[k],
                 a = after.weights->parameters().data()[k];
    diff = std::max(diff, std::abs(a - b));
    norm = std::max(norm, std::abs(b));
  }
  EXPECT_GT(norm, 0.0);
  EXPECT_LT(diff, 1e-6 * norm) << "the fine-tuned run did not start at the exported weights";
  // A random start from the run's seed is elsewhere.
  vocoder::WaveNetWeights fresh(base.weights->config());
  fresh.initialise(tuned.seed);
  double fresh_diff = 0.0;
  for (std::size_t k = 0; k < fresh.parameters().size(); ++k)
    fresh_diff = std::max(fresh_diff, double(std::abs(fresh.parameters().data()[k] -
                                                      base.weights->parameters().data()[k])));
  EXPECT_GT(fresh_diff, 1e-3);
  // The same command line, with --resume, continues the run in the init model's architecture.
  tuned.resume = true;
  tuned.steps = 2;
  EXPECT_EQ(train::train_vocoder(tuned, log_).last_step, 2);

  auto mismatched = options("mismatched", 1);
  mismatched.init_from = root_ / "base";
  mismatched.config.residual_channels = 8;  // base has 16
  try {
    train::train_vocoder(mismatched, log_);
    FAIL() << "a model of another shape was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("base"));
    EXPECT_THAT(e.what(), HasSubstr("differ"));
  }
}

TEST_F(VocoderTraining, SkipsUnreadableAndEmptyFilesNamingThem) {
  std::ofstream(root_ / "data" / "garbage.wav") << "this is not audio";
  std::ofstream(root_ / "data" / "empty.flac");
  train::train_vocoder(options("out", 2), log_);
  const std::string text = log_.str();
  EXPECT_THAT(text, HasSubstr("garbage.wav: skipped"));
  EXPECT_THAT(text, HasSubstr("empty.flac: skipped"));
  EXPECT_THAT(text, HasSubstr("1 training"));
}

// Corpus problems are named, and when nothing is left the error says why.
TEST_F(VocoderTraining, ADuplicateIdInMetadataIsReportedAndTheLaterRowDropped) {
  fs::create_directories(root_ / "lj" / "wavs");
  fs::copy_file(kClip, root_ / "lj" / "wavs" / "a.wav");
  fs::copy_file(kClip, root_ / "lj" / "wavs" / "b.wav");
  std::ofstream(root_ / "lj" / "metadata.csv") << "a|First text.\nb|Other.\na|Second text.\n";
  std::vector<std::string> warnings;
  const auto entries = train::list_corpus(root_ / "lj", warnings);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].id, "a");
  EXPECT_EQ(entries[0].text, "First text.");
  EXPECT_EQ(entries[1].id, "b");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("metadata.csv:3"));
  EXPECT_THAT(warnings[0], HasSubstr("\"a\""));
  EXPECT_THAT(warnings[0], HasSubstr("line 1"));
}

// A UTF-8 byte-order mark before the first row (some editors write one) is not part of its id.
TEST_F(VocoderTraining, AByteOrderMarkBeforeTheFirstRowIsNotPartOfItsId) {
  fs::create_directories(root_ / "lj" / "wavs");
  fs::copy_file(kClip, root_ / "lj" / "wavs" / "a.wav");
  fs::copy_file(kClip, root_ / "lj" / "wavs" / "b.wav");
  std::ofstream(root_ / "lj" / "metadata.csv") << "\xEF\xBB\xBF"
                                               << "a|First text.\nb|Other.\n";
  std::vector<std::string> warnings;
  const auto entries = train::list_corpus(root_ / "lj", warnings);
  ASSERT_EQ(entries.size(), 2u) << (warnings.empty() ? "" : warnings[0]);
  EXPECT_EQ(entries[0].id, "a");
  EXPECT_EQ(entries[0].text, "First text.");
  EXPECT_TRUE(warnings.empty()) << warnings[0];
}

// Rows whose transcript cannot be the recording's are skipped, named by their line: text with
// nothing to speak when listed, and text far longer or shorter than 1.43 s of speech could hold
// when the audio is read (both trainers load their corpus through load_audio_corpus).
TEST_F(VocoderTraining, RowsWhoseTextCannotBeTheRecordingAreSkippedNamingTheRow) {
  fs::create_directories(root_ / "lj" / "wavs");
  for (const char* id : {"a", "b", "c", "d", "e"})
    fs::copy_file(kClip, root_ / "lj" / "wavs" / (std::string(id) + ".wav"));
  std::string long_text;
  for (int i = 0; i < 20; ++i) long_text += "several words ";  // 240 letters: 168 a second
  std::ofstream(root_ / "lj" / "metadata.csv")
      << "a|Front centre.\nb| ... !? \xE2\x80\x94\nc|" << long_text << "\nd|   \ne|A\n";
  std::vector<std::string> warnings;
  train::SkipCounts skipped;
  const auto entries = train::list_corpus(root_ / "lj", warnings, &skipped);
  ASSERT_EQ(entries.size(), 3u);  // a, c and e: their length is judged with the audio
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("metadata.csv:2"));
  EXPECT_THAT(warnings[0], HasSubstr("no letter or digit"));
  EXPECT_THAT(warnings[1], HasSubstr("metadata.csv:4"));
  EXPECT_EQ(skipped["no words in the transcript"], 2u);

  train::AudioCorpusOptions options;
  options.threads = 1;
  const train::AudioCorpus corpus = train::load_audio_corpus(root_ / "lj", options);
  ASSERT_EQ(corpus.training.size() + corpus.validation.size(), 1u);
  EXPECT_EQ((corpus.training.empty() ? corpus.validation : corpus.training)[0].id, "a");
  EXPECT_EQ(corpus.skipped.at("transcript length unlike speech"), 2u);
  std::string all;
  for (const auto& w : corpus.warnings) all += w + "\n";
  EXPECT_THAT(all, HasSubstr("metadata.csv:3: its text has 240 letters for 1.43 s"));
  EXPECT_THAT(all, HasSubstr("metadata.csv:5: its text has 1 letter for"));
  EXPECT_EQ(train::spoken_characters("Caf\xC3\xA9, \xC2\xBFs\xC3\xAD? 42 \xE2\x80\xA6"), 8u);
}

// Found by fuzz/corpus_fuzz (seed fuzz/corpus/corpus/id_outside_wavs.csv): an id that is absolute
// or climbs out of wavs/ read a recording from outside the corpus.
TEST_F(VocoderTraining, AMetadataIdThatLeavesWavsIsAMalformedRow) {
  fs::create_directories(root_ / "lj" / "wavs");
  fs::copy_file(kClip, root_ / "lj" / "wavs" / "a.wav");
  fs::copy_file(kClip, root_ / "lj" / "outside.wav");
  const std::string absolute = (root_ / "lj" / "outside").string();
  std::ofstream(root_ / "lj" / "metadata.csv")
      << "../outside|Climbs out.\n"
      << absolute << "|Absolute.\nwavs/../../outside|Again.\na|Kept.\n";
  std::vector<std::string> warnings;
  train::SkipCounts skipped;
  const auto entries = train::list_corpus(root_ / "lj", warnings, &skipped);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, "a");
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_THAT(warnings[0], HasSubstr("metadata.csv:1"));
  EXPECT_THAT(warnings[0], HasSubstr("\"../outside\" is not a file name inside wavs/"));
  EXPECT_THAT(warnings[1], HasSubstr(absolute));
  EXPECT_EQ(skipped["malformed row"], 3u);
}

TEST_F(VocoderTraining, WhenEveryFileFailsTheErrorGivesTheReasonsWithCounts) {
  fs::remove(root_ / "data" / "clip.wav");
  std::ofstream(root_ / "data" / "garbage1.wav") << "this is not audio";
  std::ofstream(root_ / "data" / "garbage2.wav") << "nor is this";
  const std::vector<float> silence(8000, 0.0f), blip(100, 0.5f);
  audio::write_audio(root_ / "data" / "silent.wav", silence.data(), silence.size(), 16000);
  audio::write_audio(root_ / "data" / "short.wav", blip.data(), blip.size(), 16000);
  try {
    train::train_vocoder(options("out", 2), log_);
    FAIL() << "a corpus without usable audio was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("no usable audio files"));
    EXPECT_THAT(what, HasSubstr("4 skipped"));
    EXPECT_THAT(what, HasSubstr("2 unreadable"));
    EXPECT_THAT(what, HasSubstr("1 silent"));
    EXPECT_THAT(what, HasSubstr("1 too short or too long"));
    EXPECT_THAT(what, HasSubstr("garbage1.wav: skipped"));  // the reasons themselves
    EXPECT_THAT(what, HasSubstr("silent.wav: skipped: silent"));
  }
}

TEST(CropBatches, PredictedShareChoosesEachCropsFramesWhereTheUtteranceHasThem) {
  // Two utterances: recorded frames all 0, predicted frames all 1; the second has no prediction.
  std::vector<train::AudioUtterance> utterances(2);
  for (auto& u : utterances) {
    u.classes.assign(40000, 128);
    u.mel = kernels::Matrix::Zero(8, 40000 / 200 + 1);
  }
  utterances[0].predicted_mel = kernels::Matrix::Ones(8, utterances[0].mel.cols());
  train::CropOptions crops{4, 2000, 200, 256};
  const int frames_per_crop = crops.length / crops.hop_length + 2;
  auto crop_means = [&](double share, int batches) {
    crops.predicted_share = share;
    std::vector<float> means;
    for (int i = 0; i < batches; ++i) {
      const vocoder::Batch b = train::make_crop_batch(utterances, crops, 99, i);
      for (int s = 0; s < crops.segments; ++s)
        means.push_back(b.mel.middleCols(s * frames_per_crop, frames_per_crop).mean());
    }
    return means;
  };
  for (float m : crop_means(0.0, 20)) EXPECT_EQ(m, 0.0f);
  int predicted = 0, total = 0;
  for (float m : crop_means(1.0, 20)) {
    EXPECT_TRUE(m == 0.0f || m == 1.0f) << "a crop mixes recorded and predicted frames";
    predicted += m == 1.0f;
    ++total;
  }
  // Share 1: every crop of the first utterance (about half, chosen by length) is predicted.
  EXPECT_GT(predicted, total / 4);
  EXPECT_LT(predicted, total * 3 / 4);
  const std::vector<float> half = crop_means(0.5, 100);
  const auto half_predicted = std::count(half.begin(), half.end(), 1.0f);
  EXPECT_GT(half_predicted, static_cast<long>(half.size()) / 8);
  EXPECT_LT(half_predicted, static_cast<long>(half.size()) * 3 / 8);
  // Share 0 draws nothing: the same batches as a corpus without predictions.
  std::vector<train::AudioUtterance> plain = utterances;
  plain[0].predicted_mel.resize(0, 0);
  crops.predicted_share = 0.0;
  for (int i = 0; i < 5; ++i) {
    const vocoder::Batch a = train::make_crop_batch(utterances, crops, 7, i);
    const vocoder::Batch b = train::make_crop_batch(plain, crops, 7, i);
    EXPECT_EQ(a.targets, b.targets);
    EXPECT_TRUE(a.mel == b.mel);
  }
}
