// Dynamic loss scaling in both trainers, on the CPU in fp32 (fp16 itself needs a GPU: the parity
// rows of cuda_*_test.cpp). TTS_TEST_GRADIENT_OVERFLOW (tts/train/fault_injection.h) stands in for
// an fp16 overflow: it puts an inf into the gradients of a chosen step.
//
// Tolerances: none but equality. A power-of-two scale multiplies and divides fp32 exactly, and
// every operation of the backward pass after the scaled loss gradient is linear in it (products,
// sums, GEMMs), so the scaled run computes the same bits unless a gradient falls into fp32's
// subnormals in one run and not the other (not the case here: measured bit-identical for both
// trainers). A skipped step leaves the weights, EMA and Adam moments as they were, bit for bit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "alsa_acoustic_corpus.h"
#include "checkpoint_values.h"
#include "clip_corpus_test.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/vocoder_trainer.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;
using testing_support::checkpoint_values;

namespace {

const char* const kTensors[] = {"weights.", "ema.", "adam_m.", "adam_v."};

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Sets $TTS_TEST_GRADIENT_OVERFLOW for one scope.
class OverflowAt {
 public:
  explicit OverflowAt(const char* steps) { ::setenv("TTS_TEST_GRADIENT_OVERFLOW", steps, 1); }
  ~OverflowAt() { ::unsetenv("TTS_TEST_GRADIENT_OVERFLOW"); }
  OverflowAt(const OverflowAt&) = delete;
  OverflowAt& operator=(const OverflowAt&) = delete;
};

void expect_same_checkpoint_tensors(const fs::path& a, const fs::path& b) {
  for (const char* prefix : kTensors)
    EXPECT_EQ(checkpoint_values(a, prefix), checkpoint_values(b, prefix)) << prefix;
}

void dynamic(train::LossScalingOptions& o, float initial, int64_t growth_steps) {
  o.mode = train::LossScaling::kDynamic;
  o.initial_scale = initial;
  o.growth_steps = growth_steps;
}

class VocoderLossScaling : public tts::testing_support::ClipCorpusTest {
 protected:
  VocoderLossScaling() : ClipCorpusTest("tts-loss-scaling-") {}

  train::VocoderTrainingOptions options(const std::string& out, int64_t steps) {
    train::VocoderTrainingOptions o;
    o.data_dir = root_ / "data";
    o.out_dir = root_ / out;
    o.config.layers = 4;
    o.config.dilation_cycle = 4;
    o.config.residual_channels = 8;
    o.config.skip_channels = 16;
    o.steps = steps;
    o.batch_segments = 2;
    o.batch_length = 1000;
    o.adam.learning_rate = 3e-3f;
    o.warmup_steps = 2;
    o.validate_every = 0;
    o.checkpoint_every = 100;
    o.log_every = 1000;
    return o;
  }

  std::ostringstream log_;
};

}  // namespace

TEST_F(VocoderLossScaling, ScalingInFp32TrainsTheSameWeightsBitForBit) {
  auto plain = options("plain", 5);
  train::train_vocoder(plain, log_);
  auto scaled = options("scaled", 5);
  dynamic(scaled.loss_scaling, 65536.0f, 2000);
  train::train_vocoder(scaled, log_);
  expect_same_checkpoint_tensors(plain.out_dir, scaled.out_dir);
  // Only the scaled run records a scale: an unscaled run's checkpoint is what it always was.
  EXPECT_FALSE(read_json(plain.out_dir / "checkpoint.json").contains("loss_scale"));
  EXPECT_EQ(read_json(scaled.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 65536.0}, {"good_steps", 5}}));
  EXPECT_THAT(log_.str(), HasSubstr("loss scaling: dynamic, from scale 65536"));
}

TEST_F(VocoderLossScaling, AnOverflowSkipsTheStepAndHalvesTheScale) {
  train::train_vocoder(options("before", 2), log_);
  auto o = options("skipped", 3);
  dynamic(o.loss_scaling, 1024.0f, 2000);
  {
    const OverflowAt overflow("3");
    train::train_vocoder(o, log_);
  }
  // Step 3 took nothing from its batch: weights, EMA and both Adam moments are step 2's.
  expect_same_checkpoint_tensors(root_ / "before", o.out_dir);
  const nlohmann::json j = read_json(o.out_dir / "checkpoint.json");
  EXPECT_EQ(j.at("step"), 3);  // a skipped step counts
  EXPECT_EQ(j.at("loss_scale"), (nlohmann::json{{"scale", 512.0}, {"good_steps", 0}}));
  EXPECT_THAT(log_.str(), HasSubstr("step 3: gradients not finite at loss scale 1024: step "
                                    "skipped (weights, Adam moments and EMA unchanged), scale "
                                    "halved to 512"));
}

TEST_F(VocoderLossScaling, WithoutScalingAnOverflowStillStopsTheRun) {
  const OverflowAt overflow("2");
  try {
    train::train_vocoder(options("plain", 3), log_);
    FAIL() << "a non-finite gradient was stepped on";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not finite"));
  }
}

// Growth every 2 good steps from 2^10, an overflow at step 3: 1 good, 2 grows to 2048, 3 halves to
// 1024, 4 good (count 1), 5 grows to 2048, 6 good (count 1). The resume starts from step 4's
// checkpoint, after the backoff and in the middle of a run of good steps: it must keep both.
TEST_F(VocoderLossScaling, TheScaleGrowsAndAResumeKeepsItAndItsCount) {
  const OverflowAt overflow("3");
  auto whole = options("whole", 6);
  dynamic(whole.loss_scaling, 1024.0f, 2);
  train::train_vocoder(whole, log_);
  EXPECT_THAT(log_.str(), HasSubstr("step 2: loss scale doubled to 2048 after 2 good steps"));
  EXPECT_THAT(log_.str(), HasSubstr("step 5: loss scale doubled to 2048 after 2 good steps"));
  EXPECT_EQ(read_json(whole.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 2048.0}, {"good_steps", 1}}));

  auto first = options("resumed", 4);
  first.loss_scaling = whole.loss_scaling;
  train::train_vocoder(first, log_);
  EXPECT_EQ(read_json(first.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 1024.0}, {"good_steps", 1}}));
  auto rest = options("resumed", 6);
  rest.loss_scaling = whole.loss_scaling;
  rest.resume = true;
  log_.str("");
  train::train_vocoder(rest, log_);
  EXPECT_THAT(log_.str(), HasSubstr("loss scaling: dynamic, resumed at scale 1024 (1 good steps"));
  EXPECT_THAT(log_.str(), HasSubstr("step 5: loss scale doubled to 2048"));
  EXPECT_EQ(read_json(rest.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 2048.0}, {"good_steps", 1}}));
  expect_same_checkpoint_tensors(whole.out_dir, rest.out_dir);
}

TEST_F(VocoderLossScaling, Fp16OnTheCpuIsRefusedNamingIt) {
  auto o = options("fp16", 2);
  o.device.precision = kernels::GemmPrecision::kFp16;
  try {
    train::train_vocoder(o, log_);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("precision fp16 needs --device cuda"));
  }
  EXPECT_FALSE(fs::exists(o.out_dir / "checkpoint.json"));
}

TEST_F(VocoderLossScaling, ABadInitialScaleIsRefusedBeforeTraining) {
  auto o = options("bad", 2);
  dynamic(o.loss_scaling, 1000.0f, 10);
  try {
    train::train_vocoder(o, log_);
    FAIL() << "--loss-scale-init 1000 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--loss-scale-init"));
  }
  EXPECT_FALSE(fs::exists(o.out_dir / "checkpoint.json"));
}

namespace {

class AcousticLossScaling : public testing_support::AlsaAcousticCorpusTest {};

}  // namespace

// Flat start for 3 steps, then alignment search, with the variance adaptor: every loss gradient
// the pass scales (mel, prior, duration, pitch, energy) is in play.
TEST_F(AcousticLossScaling, ScalingInFp32TrainsTheSameWeightsBitForBit) {
  auto plain = options("plain", 5);
  train::train_acoustic(plain, log_);
  auto scaled = options("scaled", 5);
  dynamic(scaled.loss_scaling, 65536.0f, 2000);
  train::train_acoustic(scaled, log_);
  expect_same_checkpoint_tensors(plain.out_dir, scaled.out_dir);
  EXPECT_FALSE(read_json(plain.out_dir / "checkpoint.json").contains("loss_scale"));
  EXPECT_EQ(read_json(scaled.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 65536.0}, {"good_steps", 5}}));
}

TEST_F(AcousticLossScaling, AnOverflowSkipsTheStepAndAResumeKeepsTheScale) {
  train::train_acoustic(options("before", 4), log_);
  const OverflowAt overflow("5");
  auto o = options("skipped", 5);
  dynamic(o.loss_scaling, 1024.0f, 2000);
  train::train_acoustic(o, log_);
  expect_same_checkpoint_tensors(root_ / "before", o.out_dir);
  EXPECT_EQ(read_json(o.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 512.0}, {"good_steps", 0}}));
  EXPECT_THAT(log_.str(), HasSubstr("step 5: gradients not finite at loss scale 1024: step "
                                    "skipped"));
  auto more = options("skipped", 6);
  more.loss_scaling = o.loss_scaling;
  more.resume = true;
  more.checkpoint_every = 6;
  train::train_acoustic(more, log_);
  EXPECT_EQ(read_json(o.out_dir / "checkpoint.json").at("loss_scale"),
            (nlohmann::json{{"scale", 512.0}, {"good_steps", 1}}));
}

TEST_F(AcousticLossScaling, Fp16OnTheCpuIsRefusedNamingIt) {
  auto o = options("fp16", 2);
  o.device.precision = kernels::GemmPrecision::kFp16;
  try {
    train::train_acoustic(o, log_);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("precision fp16 needs --device cuda"));
  }
}
