// Training the vocoder end to end on real recorded speech: it learns, resumes exactly, and survives
// bad data and failed writes without losing the last good checkpoint.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tts/kernels/device.h"
#include "tts/kernels/optimizer.h"
#include "tts/kernels/safetensors.h"
#include "tts/train/checkpoint.h"
#include "tts/train/crop_batches.h"
#include "tts/train/vocoder_trainer.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/teacher_forced.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;

namespace {

const fs::path kClip = "/usr/share/sounds/alsa/Front_Center.wav";  // alsa-utils: a real voice

class VocoderTraining : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tts-train-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
             std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "data");
    ASSERT_TRUE(fs::exists(kClip)) << "install alsa-utils (scripts/install-deps)";
    fs::copy_file(kClip, root_ / "data" / "clip.wav");
  }
  void TearDown() override { fs::remove_all(root_); }

  train::VocoderTrainingOptions options(const std::string& out, int64_t steps) {
    train::VocoderTrainingOptions o;
    o.data_dir = root_ / "data";
    o.out_dir = root_ / out;
    o.config.layers = 6;
    o.config.dilation_cycle = 6;
    o.config.residual_channels = 16;
    o.config.skip_channels = 32;
    o.steps = steps;
    o.batch_segments = 2;
    o.batch_length = 2000;
    o.adam.learning_rate = 3e-3f;
    o.warmup_steps = 20;
    o.validate_every = 0;
    o.checkpoint_every = 5;
    o.log_every = 1000;
    return o;
  }

  fs::path root_;
  std::ostringstream log_;
};

std::vector<std::byte> tensor_bytes(const fs::path& checkpoint_dir) {
  std::ifstream in(checkpoint_dir / "checkpoint.json");
  const auto j = nlohmann::json::parse(in);
  const auto file =
      kernels::SafetensorsFile::load(checkpoint_dir / j.at("weights").get<std::string>());
  std::vector<std::byte> all;
  for (const auto& name : file.names()) {
    const auto& t = file.tensor(name);
    all.insert(all.end(), t.data, t.data + t.nbytes);
  }
  return all;
}

}  // namespace

TEST_F(VocoderTraining, TinyModelOverfitsAShortRealClip) {
  auto o = options("out", 300);
  o.ema_decay = 0.9f;
  o.log_every = 50;
  o.checkpoint_every = 300;
  train::train_vocoder(o, log_);

  const vocoder::VocoderModel model = vocoder::load_vocoder(o.out_dir);
  train::CorpusOptions corpus_options;
  corpus_options.features = o.features;
  const train::Corpus corpus = train::load_corpus(o.data_dir, corpus_options);
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
  bf16_on_cpu.precision = "bf16";
  try {
    train::train_vocoder(bf16_on_cpu, log_);
    FAIL() << "bf16 on the CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--device cuda"));
  }
  EXPECT_FALSE(fs::exists(root_ / "out")) << "nothing is written before the device is usable";
  if (kernels::cuda_device_count() == 0) {  // here (and in CI): cuda must be refused, saying why
    auto cuda = options("out", 2);
    cuda.device = "cuda";
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
  const train::TrainingSummary summary = train::train_vocoder(tuned, log_);
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

TEST_F(VocoderTraining, RefusesToOverwriteACheckpointWithoutResume) {
  train::train_vocoder(options("out", 5), log_);
  EXPECT_THROW(train::train_vocoder(options("out", 10), log_), std::runtime_error);
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

TEST_F(VocoderTraining, NonFiniteLossStopsAndKeepsTheLastGoodCheckpoint) {
  train::train_vocoder(options("out", 5), log_);
  auto exploding = options("out", 20);
  exploding.resume = true;
  exploding.adam.learning_rate = 1e30f;  // the first update blows the weights up
  exploding.warmup_steps = 0;
  try {
    train::train_vocoder(exploding, log_);
    FAIL() << "training with exploding weights should stop";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not finite"));
  }
  train::TrainingState state;
  vocoder::WaveNetWeights shape(exploding.config);
  state.config = exploding.config;
  state.weights = state.ema = state.first_moment = state.second_moment = shape.parameters();
  train::load_checkpoint(exploding.out_dir, state);
  EXPECT_EQ(state.step, 5);
  EXPECT_TRUE(kernels::all_finite(state.weights.data(), state.weights.size()));
}

TEST_F(VocoderTraining, FailedCheckpointWriteKeepsThePreviousOne) {
  train::train_vocoder(options("out", 5), log_);
  const auto good = tensor_bytes(root_ / "out");
  fs::create_directories(root_ / "out" / "checkpoint-10.safetensors");  // the next write must fail
  auto more = options("out", 10);
  more.resume = true;
  EXPECT_THROW(train::train_vocoder(more, log_), std::runtime_error);
  EXPECT_TRUE(tensor_bytes(root_ / "out") == good);
  for (const auto& entry : fs::directory_iterator(root_ / "out"))
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".tmp")));
}

TEST(CropBatches, PredictedShareChoosesEachCropsFramesWhereTheUtteranceHasThem) {
  // Two utterances: recorded frames all 0, predicted frames all 1; the second has no prediction.
  std::vector<train::Utterance> utterances(2);
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
  std::vector<train::Utterance> plain = utterances;
  plain[0].predicted_mel.resize(0, 0);
  crops.predicted_share = 0.0;
  for (int i = 0; i < 5; ++i) {
    const vocoder::Batch a = train::make_crop_batch(utterances, crops, 7, i);
    const vocoder::Batch b = train::make_crop_batch(plain, crops, 7, i);
    EXPECT_EQ(a.targets, b.targets);
    EXPECT_TRUE(a.mel == b.mel);
  }
}
