// Gradient accumulation (`--accumulate K`): K micro-batches of B items train the weights of one
// batch of K·B items, for both trainers; the checkpoint records the layout, and a resume keeps the
// global batch or is refused. The micro-batches are slices of the large batch
// (tts/train/batch_layout.h), so the only difference is the order of floating-point sums.
//
// Tolerance: 1e-4 normalised weight difference after 6 Adam steps (fp32, CPU). Splitting a batch
// changes only the order of floating-point sums (the micro-batches' column sums, each mean
// scaled twice), and so does running the same batch through other GEMM kernels: `tts train
// vocoder --batch 4` of this tiny model (CLI defaults, 6 steps) with OpenBLAS's Haswell kernels
// instead of its SkylakeX ones lands 9.9e-7 from itself, and 2 × 2 lands 9.9e-7 from 4. Adam
// makes that the scale: elements whose gradient is a small remainder of cancelling terms carry
// relative rounding errors near 1e-4, and m/√v passes them on at the size of a step. Measured
// here (this fixture's faster warm-up): 2–3e-8 for both trainers with GCC's Release build, but
// 1.5e-5 for the vocoder's 2 × 2 in Clang's RelWithDebInfo build under ASan (CI's second
// compiler, which orders the vectorised sums differently), hence 1e-4. A real mistake changes the
// steps themselves: normalising the pitch loss by the micro-batch's tokens instead of the whole
// batch's gave 1.6e-3, and the control pairs below (a batch of half the size) are over 1e-2
// apart; they must exceed 1e-3.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "alsa_acoustic_corpus.h"
#include "checkpoint_values.h"
#include "clip_corpus_test.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/crop_batches.h"
#include "tts/train/vocoder_trainer.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;
using testing_support::checkpoint_values;
using testing_support::normalised_difference;

namespace {

constexpr double kSameWeights = 1e-4;
constexpr double kOtherWeights = 1e-3;  // what a control pair must exceed

class VocoderAccumulation : public tts::testing_support::ClipCorpusTest {
 protected:
  VocoderAccumulation() : ClipCorpusTest("tts-accumulate-") {}

  train::VocoderTrainingOptions options(const std::string& out, int batch, int accumulate,
                                        int64_t steps = 6) {
    train::VocoderTrainingOptions o;
    o.data_dir = root_ / "data";
    o.out_dir = root_ / out;
    o.config.layers = 6;
    o.config.dilation_cycle = 6;
    o.config.residual_channels = 16;
    o.config.skip_channels = 32;
    o.steps = steps;
    o.batch_segments = batch;
    o.accumulate = accumulate;
    o.batch_length = 2000;
    o.adam.learning_rate = 3e-3f;
    o.warmup_steps = 2;
    o.validate_every = 0;
    o.checkpoint_every = 3;
    o.log_every = 1000;
    return o;
  }
  std::vector<float> train(const train::VocoderTrainingOptions& o) {
    train::train_vocoder(o, log_);
    return checkpoint_values(o.out_dir);
  }

  std::ostringstream log_;
};

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST(CropBatches, SlicesOfABatchPutTogetherAreTheBatch) {
  std::vector<train::AudioUtterance> corpus(3);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    corpus[i].classes.resize(3000 + 1000 * i);
    for (std::size_t t = 0; t < corpus[i].classes.size(); ++t)
      corpus[i].classes[t] = static_cast<int32_t>((t * 7 + i * 31) % 256);
    corpus[i].mel =
        kernels::Matrix::Random(4, static_cast<Eigen::Index>(corpus[i].classes.size() / 200));
  }
  train::CropOptions o{6, 400, 200, 256};
  const vocoder::Batch whole = train::make_crop_batch(corpus, o, 9, 5);
  for (int first : {0, 2, 5}) {
    const int count = first == 5 ? 1 : 2;
    const vocoder::Batch slice = train::make_crop_batch_slice(corpus, o, 9, 5, first, count);
    const std::size_t from = static_cast<std::size_t>(first) * o.length;
    ASSERT_EQ(slice.segments, count);
    EXPECT_TRUE(std::equal(slice.inputs.begin(), slice.inputs.end(), whole.inputs.begin() + from));
    EXPECT_TRUE(
        std::equal(slice.targets.begin(), slice.targets.end(), whole.targets.begin() + from));
    const Eigen::Index frames = slice.mel.cols();
    EXPECT_EQ(slice.mel, whole.mel.middleCols(frames / count * first, frames)) << first;
  }
  EXPECT_THROW(train::make_crop_batch_slice(corpus, o, 9, 5, 5, 2), std::invalid_argument);
}

TEST_F(VocoderAccumulation, MicroBatchesTrainTheWeightsOfOneLargeBatch) {
  const auto whole = train(options("whole", 4, 1));
  const auto halves = train(options("halves", 2, 2));
  const auto quarters = train(options("quarters", 1, 4));
  const double d2 = normalised_difference(whole, halves),
               d4 = normalised_difference(whole, quarters);
  EXPECT_LT(d2, kSameWeights);
  EXPECT_LT(d4, kSameWeights);
  // The control: two micro-batches of 2 are not one batch of 2.
  const auto small = train(options("small", 2, 1));
  const double control = normalised_difference(whole, small);
  EXPECT_GT(control, kOtherWeights);
  std::cout << "vocoder: 2 × 2 against 4: " << d2 << ", 4 × 1: " << d4 << "; 2 against 4 "
            << control << "\n";
}

TEST_F(VocoderAccumulation, TheCheckpointRecordsTheBatchAndAResumeKeepsTheGlobalBatch) {
  const auto uninterrupted = train(options("whole", 4, 1));
  train(options("run", 2, 2, 3));
  const nlohmann::json j = read_json(root_ / "run" / "checkpoint.json");
  EXPECT_EQ(j.at("global_batch"), 4);
  EXPECT_EQ(j.at("batch"), 2);
  EXPECT_EQ(j.at("accumulate"), 2);
  EXPECT_EQ(j.at("world_size"), 1);
  // Another global batch would draw other batches: refused, naming both and what to keep.
  auto other = options("run", 2, 1);
  other.resume = true;
  try {
    train::train_vocoder(other, log_);
    FAIL() << "a resume with another global batch was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("checkpoint.json: cannot resume"));
    EXPECT_THAT(e.what(), HasSubstr("global batch of 4 (1 × 2 × 2)"));
    EXPECT_THAT(e.what(), HasSubstr("2 (1 rank × 1 micro-batch × 2)"));
  }
  // The same global batch in another layout continues the run.
  auto resumed = options("run", 4, 1);
  resumed.resume = true;
  EXPECT_LT(normalised_difference(uninterrupted, train(resumed)), kSameWeights);
}

TEST_F(VocoderAccumulation, ABadAccumulationIsRefusedNamingIt) {
  try {
    train::train_vocoder(options("bad", 2, 0), log_);
    FAIL() << "--accumulate 0 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--accumulate is 0"));
  }
  EXPECT_FALSE(fs::exists(root_ / "bad"));
}

namespace {

class AcousticAccumulation : public testing_support::AlsaAcousticCorpusTest {
 protected:
  train::AcousticTrainingOptions accumulating(const std::string& out, int batch, int accumulate) {
    train::AcousticTrainingOptions o = options(out, 6);
    o.batch_utterances = batch;
    o.accumulate = accumulate;
    o.checkpoint_every = 6;
    return o;  // flat start for 3 steps, then alignment search; the variance adaptor is on
  }
  std::vector<float> train(const train::AcousticTrainingOptions& o) {
    train::train_acoustic(o, log_);
    return checkpoint_values(o.out_dir);
  }
};

}  // namespace

TEST_F(AcousticAccumulation, SlicesOfABatchPutTogetherAreTheBatch) {
  std::vector<train::AcousticUtterance> corpus(5);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    corpus[i].id = "u" + std::to_string(i);
    corpus[i].ids.assign(3 + i, static_cast<int32_t>(i));
    const auto frames = static_cast<Eigen::Index>(10 + i);
    corpus[i].mel = kernels::Matrix::Constant(2, frames, float(i));
    corpus[i].log_f0 = corpus[i].log_energy = kernels::Matrix::Zero(1, frames);
    corpus[i].speaker = static_cast<int>(i % 2);
  }
  const acoustic::AcousticBatch whole = train::make_speaker_balanced_batch(corpus, 2, 6, 3, 7);
  std::vector<int32_t> ids;
  std::vector<int> frames;
  for (int first = 0; first < 6; first += 2) {
    const acoustic::AcousticBatch b =
        train::make_speaker_balanced_batch_slice(corpus, 2, 6, 3, 7, first, 2);
    ids.insert(ids.end(), b.ids.begin(), b.ids.end());
    frames.insert(frames.end(), b.frame_lengths.begin(), b.frame_lengths.end());
  }
  EXPECT_EQ(ids, whole.ids);
  EXPECT_EQ(frames, whole.frame_lengths);
}

TEST_F(AcousticAccumulation, MicroBatchesTrainTheWeightsOfOneLargeBatch) {
  const auto whole = train(accumulating("whole", 4, 1));
  const auto halves = train(accumulating("halves", 2, 2));
  const auto quarters = train(accumulating("quarters", 1, 4));
  const double d2 = normalised_difference(whole, halves),
               d4 = normalised_difference(whole, quarters);
  EXPECT_LT(d2, kSameWeights);
  EXPECT_LT(d4, kSameWeights);
  const auto small = train(accumulating("small", 2, 1));
  const double control = normalised_difference(whole, small);
  EXPECT_GT(control, kOtherWeights);
  std::cout << "acoustic: 2 × 2 against 4: " << d2 << ", 4 × 1: " << d4 << "; 2 against 4 "
            << control << "\n";
  const nlohmann::json j = read_json(root_ / "halves" / "checkpoint.json");
  EXPECT_EQ(j.at("global_batch"), 4);
  EXPECT_EQ(j.at("accumulate"), 2);
}

TEST_F(AcousticAccumulation, AResumeWithAnotherGlobalBatchIsRefused) {
  auto first = accumulating("run", 2, 2);
  first.steps = 3;
  train::train_acoustic(first, log_);
  auto other = accumulating("run", 3, 2);
  other.resume = true;
  try {
    train::train_acoustic(other, log_);
    FAIL() << "a resume with another global batch was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("global batch of 4"));
    EXPECT_THAT(e.what(), HasSubstr("this run's is 6"));
  }
}
