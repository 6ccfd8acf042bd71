// Training the acoustic model end to end on real recorded speech (alsa-utils' spoken channel
// names, with their transcripts): it learns, exports a loadable model, and resumes exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "alsa_acoustic_corpus.h"
#include "run_tts.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/model_files.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/kernels/device.h"
#include "tts/kernels/npy.h"
#include "tts/kernels/safetensors.h"
#include "tts/kernels/seed.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/audio_corpus.h"
#include "tts/train/predicted_mels.h"

namespace fs = std::filesystem;
using namespace tts;

namespace {

using AcousticTraining = testing_support::AlsaAcousticCorpusTest;

std::vector<std::byte> checkpoint_bytes(const fs::path& dir) {
  std::ifstream in(dir / "checkpoint.json");
  const auto j = nlohmann::json::parse(in);
  const auto file = kernels::SafetensorsFile::load(dir / j.at("weights").get<std::string>());
  std::vector<std::byte> all;
  for (const auto& name : file.names()) {
    const auto& t = file.tensor(name);
    all.insert(all.end(), t.data, t.data + t.nbytes);
  }
  return all;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_F(AcousticTraining, UnusableDeviceOrPrecisionIsRefusedBeforeAnyWork) {
  auto bf16_on_cpu = options("out", 2);
  bf16_on_cpu.device.precision = kernels::GemmPrecision::kBf16;
  try {
    train::train_acoustic(bf16_on_cpu, log_);
    FAIL() << "bf16 on the CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("--device cuda"));
  }
  EXPECT_FALSE(fs::exists(root_ / "out")) << "nothing is written before the device is usable";
  EXPECT_EQ(log_.str().find("corpus:"), std::string::npos) << "the corpus was loaded first";
  if (kernels::cuda_device_count() == 0) {  // here (and in CI): cuda must be refused, saying why
    auto cuda = options("out", 2);
    cuda.device.device = kernels::Device::kCuda;
    try {
      train::train_acoustic(cuda, log_);
      FAIL() << "--device cuda was accepted without a GPU";
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("cuda"));
    }
    EXPECT_FALSE(fs::exists(root_ / "out"));
  }
  // A usable choice trains, and says where.
  train::train_acoustic(options("out", 2), log_);
  EXPECT_NE(log_.str().find("training pass: cpu"), std::string::npos) << log_.str();
}

TEST_F(AcousticTraining, ResumedRunEndsWithIdenticalWeights) {
  train::train_acoustic(options("straight", 10), log_);
  train::train_acoustic(options("interrupted", 5), log_);
  auto resumed = options("interrupted", 10);
  resumed.resume = true;
  const auto summary = train::train_acoustic(resumed, log_);
  EXPECT_EQ(summary.first_step, 5);
  EXPECT_EQ(summary.last_step, 10);
  const auto a = checkpoint_bytes(root_ / "straight"), b = checkpoint_bytes(root_ / "interrupted");
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << "weights, EMA and Adam moments must match bit for bit";
  auto other = options("other", 10);
  other.seed = 2;
  train::train_acoustic(other, log_);
  EXPECT_FALSE(checkpoint_bytes(root_ / "other") == a);
}

TEST_F(AcousticTraining, DropoutChangesTrainingAndStillResumesExactly) {
  auto with_dropout = [&](const std::string& out, int64_t steps) {
    auto o = options(out, steps);
    o.loss.dropout = 0.3f;
    return o;
  };
  train::train_acoustic(options("plain", 10), log_);
  train::train_acoustic(with_dropout("straight", 10), log_);
  train::train_acoustic(with_dropout("interrupted", 5), log_);
  auto resumed = with_dropout("interrupted", 10);
  resumed.resume = true;
  train::train_acoustic(resumed, log_);
  const auto a = checkpoint_bytes(root_ / "straight"), b = checkpoint_bytes(root_ / "interrupted");
  EXPECT_TRUE(a == b) << "a resumed run must draw the same dropout masks";
  EXPECT_FALSE(a == checkpoint_bytes(root_ / "plain")) << "dropout had no effect";
}

TEST_F(AcousticTraining, AlignmentRestartsContinueTheBestFittingCandidateAndResumeExactly) {
  auto with_restarts = [&](const std::string& out, int64_t steps) {
    auto o = options(out, steps);
    o.alignment_restarts = 3;
    o.restart_steps = 4;
    return o;
  };
  std::ostringstream log;
  train::train_acoustic(with_restarts("straight", 10), log);
  // Three candidates are reported with their fit; the lowest one is continued.
  const std::regex line(
      R"(alignment restart (\d)/3 \(seed (\d+)\): prior loss ([0-9.e+-]+) at step 4)");
  const std::string text = log.str();
  std::vector<std::pair<double, uint64_t>> candidates;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it)
    candidates.emplace_back(std::stod((*it)[3]), std::stoull((*it)[2]));
  ASSERT_EQ(candidates.size(), 3u) << text;
  EXPECT_EQ(candidates[0].second, 1u) << "the first candidate is the run's own seed";
  EXPECT_NE(candidates[1].second, candidates[2].second);
  const uint64_t best = std::min_element(candidates.begin(), candidates.end())->second;
  EXPECT_NE(text.find("continuing the restart with seed " + std::to_string(best)),
            std::string::npos)
      << text;
  // The continued run is exactly a plain run from the winner's seed: same weights, EMA and moments.
  auto plain = options("plain", 10);
  plain.seed = best;
  train::train_acoustic(plain, log_);
  const auto a = checkpoint_bytes(root_ / "straight");
  EXPECT_TRUE(a == checkpoint_bytes(root_ / "plain"));
  // Its checkpoint records the winner's seed, so an interrupted run resumes on the same batches.
  train::train_acoustic(with_restarts("interrupted", 5), log_);
  auto resumed = with_restarts("interrupted", 10);
  resumed.resume = true;
  train::train_acoustic(resumed, log_);
  EXPECT_TRUE(a == checkpoint_bytes(root_ / "interrupted"));
}

// A resumed run continues the run its checkpoint records, or says why it cannot.
TEST_F(AcousticTraining, ResumeWithAnotherSeedIsRefusedNamingBothSeeds) {
  train::train_acoustic(options("out", 5), log_);
  const auto before = checkpoint_bytes(root_ / "out");
  auto other = options("out", 10);
  other.resume = true;
  other.seed = 2;
  try {
    train::train_acoustic(other, log_);
    FAIL() << "a resume with another seed was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("--seed 1"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("--seed 2"));
  }
  EXPECT_TRUE(checkpoint_bytes(root_ / "out") == before);
}

TEST_F(AcousticTraining, ResumeWithoutACheckpointIsAnError) {
  auto o = options("empty", 5);
  o.resume = true;
  try {
    train::train_acoustic(o, log_);
    FAIL() << "--resume without a checkpoint started a run";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("no checkpoint"));
  }
  EXPECT_FALSE(fs::exists(root_ / "empty" / "checkpoint.json"));
}

TEST_F(AcousticTraining, ResumeAtOrBelowTheCheckpointsStepTrainsNothingAndSaysSo) {
  train::train_acoustic(options("out", 5), log_);
  const auto before = checkpoint_bytes(root_ / "out");
  for (int64_t steps : {5, 2}) {
    auto o = options("out", steps);
    o.resume = true;
    std::ostringstream log;
    const auto s = train::train_acoustic(o, log);
    EXPECT_EQ(s.first_step, 5);
    EXPECT_EQ(s.last_step, 5);
    EXPECT_THAT(log.str(), ::testing::HasSubstr("already trained to step 5; ask for more --steps"));
    EXPECT_THAT(log.str(), ::testing::Not(::testing::HasSubstr("corpus:")));
  }
  // Asked for the alignments, the finished run still writes them (and trains nothing).
  auto alignments = options("out", 5);
  alignments.resume = true;
  alignments.alignments_file = root_ / "alignments.tsv";
  const auto s = train::train_acoustic(alignments, log_);
  EXPECT_TRUE(s.already_trained);
  EXPECT_EQ(s.last_step, 5);
  EXPECT_TRUE(fs::exists(alignments.alignments_file));
  EXPECT_TRUE(checkpoint_bytes(root_ / "out") == before);
}

// With alignment restarts the checkpoint's batch seed is the winning candidate's, not --seed;
// a checkpoint that does not record the run's seed (older ones) is matched through the restarts.
TEST_F(AcousticTraining, ARestartWinnersCheckpointResumesUnderTheRunsSeed) {
  auto with_restarts = [&](int64_t steps) {
    auto o = options("out", steps);
    o.alignment_restarts = 4;
    o.restart_steps = 2;
    return o;
  };
  train::train_acoustic(with_restarts(5), log_);
  EXPECT_EQ(read_json(root_ / "out" / "checkpoint.json").at("run_seed"), 1);
  // As an older checkpoint whose fourth candidate won: the seed of restart 3 of --seed 1 (the
  // trainer's restart seeds are the outputs of SplitMix64 started at the run's seed), and no
  // run_seed.
  nlohmann::json j = read_json(root_ / "out" / "checkpoint.json");
  j.erase("run_seed");
  j["seed"] = kernels::splitmix64(1, 3);
  // Older checkpoints' weights did not record the seed either (nor did they carry checksums).
  const fs::path weights = root_ / "out" / j.at("weights").get<std::string>();
  {
    const auto file = kernels::SafetensorsFile::load(weights);
    kernels::SafetensorsWriter older;
    for (const auto& [key, value] : file.metadata())
      if (key != "seed") older.set_metadata(key, value);
    for (const auto& name : file.names()) {
      const auto& t = file.tensor(name);
      older.add(name, t.dtype, t.shape, t.data, t.nbytes);
    }
    older.write(weights);
  }
  j.erase("files");
  std::ofstream(root_ / "out" / "checkpoint.json") << j.dump(2);
  auto other = with_restarts(6);
  other.resume = true;
  other.seed = 3;
  EXPECT_THROW(train::train_acoustic(other, log_), std::runtime_error);
  auto resumed = with_restarts(6);
  resumed.resume = true;
  EXPECT_EQ(train::train_acoustic(resumed, log_).last_step, 6);
  const auto after = read_json(root_ / "out" / "checkpoint.json");
  EXPECT_EQ(after.at("run_seed"), 1);
  EXPECT_EQ(after.at("seed"), j.at("seed")) << "the batches stay the winner's";
}

TEST_F(AcousticTraining, ResumeFromTheCommandLineSaysWhatIsWrong) {
  const auto o = options("out", 5);
  train::train_acoustic(o, log_);
  const std::string common = "train acoustic --data " + o.data_dir.string() + " --resume";
  CommandResult r = run_tts(common + " --out " + o.out_dir.string() + " --steps 5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("already trained to step 5; ask for more --steps"));
  EXPECT_THAT(r.output, ::testing::Not(::testing::HasSubstr("trained steps")));
  r = run_tts(common + " --out " + o.out_dir.string() + " --steps 10 --seed 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("--seed 1"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("--seed 2"));
  r = run_tts(common + " --out " + (root_ / "none").string() + " --steps 10");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("no checkpoint"));
}

TEST_F(AcousticTraining, WhenNoRecordingIsUsableTheErrorGivesTheReasonsWithCounts) {
  fs::remove(root_ / "data" / "metadata.csv");  // audio without transcripts
  try {
    train::load_acoustic_corpus(root_ / "data", {}, "en-us");
    FAIL() << "a corpus without transcripts was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, ::testing::HasSubstr("no usable recordings with transcripts"));
    EXPECT_THAT(what, ::testing::HasSubstr("6 skipped (6 without a transcript)"));
    EXPECT_THAT(what, ::testing::HasSubstr("Front_Center.wav: skipped: no transcript"));
  }
}

// The acoustic model's corpus skips, as the vocoder's does, rows whose text is not the
// recording's: one with nothing to speak, one far too long for its second and a half.
TEST_F(AcousticTraining, RowsWhoseTextCannotBeTheRecordingAreSkippedWithAWarning) {
  for (const char* id : {"Empty", "Long"})
    fs::copy_file(root_ / "data" / "wavs" / "Front_Left.wav",
                  root_ / "data" / "wavs" / (std::string(id) + ".wav"));
  std::ofstream(root_ / "data" / "metadata.csv", std::ios::app)
      << "Empty|  --  \nLong|" << std::string(100, 'a') + " and " + std::string(100, 'b') << "\n";
  const train::AcousticCorpus corpus = train::load_acoustic_corpus(root_ / "data", {}, "en-us");
  std::string all;
  for (const auto& w : corpus.warnings) all += w + "\n";
  EXPECT_THAT(all, ::testing::HasSubstr("metadata.csv:7: skipped: its text \"  --  \" has no"));
  EXPECT_THAT(all, ::testing::HasSubstr("metadata.csv:8: its text has 203 letters"));
  EXPECT_EQ(corpus.training.size() + corpus.validation.size(), 6u) << all;
}

TEST_F(AcousticTraining, RefusesToOverwriteACheckpointWithoutResume) {
  train::train_acoustic(options("out", 2), log_);
  EXPECT_THROW(train::train_acoustic(options("out", 4), log_), std::runtime_error);
}

TEST_F(AcousticTraining, LearnsAndExportsAModelThatSynthesizesWithRateControl) {
  auto o = options("out", 120);
  o.validate_every = 120;
  o.ema_decay = 0.9f;
  o.uniform_alignment_steps = 30;
  o.alignments_file = root_ / "out" / "alignments.tsv";
  train::AcousticTrainingOptions first = o;
  first.steps = 1;
  first.out_dir = root_ / "first";
  const auto start = train::train_acoustic(first, log_);
  const auto end = train::train_acoustic(o, log_);
  EXPECT_LT(end.last_losses.mel, 0.6 * start.last_losses.mel) << log_.str();
  ASSERT_TRUE(end.last_validation_mel.has_value());
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("val mel"));
  EXPECT_TRUE(fs::exists(o.alignments_file));

  const auto model = acoustic::load_acoustic_model(o.out_dir);
  EXPECT_EQ(model->features().n_mels, o.features.n_mels);
  const frontend::TextPipeline pipeline("en-us");
  const std::vector<int> ids = pipeline.process_sentence("Front center").ids;
  const std::vector<int32_t> ids32(ids.begin(), ids.end());
  const acoustic::AcousticOutput normal = model->synthesize(ids32, {});
  ASSERT_EQ(normal.durations.size(), ids.size());
  int frames = 0;
  using frontend::SymbolTiming;
  const auto& timings = frontend::SymbolTable::default_table().timings();
  auto timing = [&](int id) { return timings[static_cast<std::size_t>(id)]; };
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int d = normal.durations[i];
    if (timing(ids[i]) == SymbolTiming::kSounds) {
      EXPECT_GE(d, 1) << "token " << i;
    } else if (timing(ids[i]) == SymbolTiming::kNoTime) {
      EXPECT_EQ(d, 0) << "token " << i;
    }
    frames += d;
  }
  EXPECT_EQ(frames, normal.mel.cols());
  EXPECT_EQ(normal.mel.rows(), o.features.n_mels);
  EXPECT_TRUE(normal.mel.allFinite());
  const acoustic::AcousticOutput fast = model->synthesize(ids32, {2.0f, 0.0f});
  EXPECT_LT(fast.mel.cols(), normal.mel.cols() * 0.7);
  const auto sounding = std::count_if(ids.begin(), ids.end(),
                                      [&](int id) { return timing(id) == SymbolTiming::kSounds; });
  EXPECT_GE(fast.mel.cols(), sounding);
  EXPECT_THROW(model->synthesize({}, {}), std::invalid_argument);
  EXPECT_THROW(model->synthesize({1, 9999, 2}, {}), std::invalid_argument);
  EXPECT_THROW(model->synthesize(ids32, {0.0f, 0.0f}), std::invalid_argument);
}

TEST_F(AcousticTraining, InitFromStartsWhereAnotherRunEnded) {
  auto first = options("first", 60);
  first.ema_decay = 0.0f;  // export the final weights themselves
  const auto trained = train::train_acoustic(first, log_);
  // One more step from its exported weights starts near its last loss, far below a fresh start.
  auto from_trained = options("from-trained", 1);
  from_trained.init_from = root_ / "first";
  from_trained.warmup_steps = 1000;          // a tiny first step: the loss is the starting weights'
  from_trained.uniform_alignment_steps = 0;  // aligned by its own prior, as the first run ended
  const double continued = train::train_acoustic(from_trained, log_).last_losses.mel;
  auto fresh = options("fresh", 1);
  fresh.warmup_steps = 1000;
  const double scratch = train::train_acoustic(fresh, log_).last_losses.mel;
  EXPECT_LT(continued, 0.8 * scratch) << "trained run ended at " << trained.last_losses.mel;
  // A different architecture is refused, naming the folder.
  auto other = options("other", 1);
  other.config.channels = 8;
  other.init_from = root_ / "first";
  try {
    train::train_acoustic(other, log_);
    FAIL() << "a different architecture was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("first"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("differs"));
  }
  // Unless the run takes the architecture from the model it starts from.
  other.architecture_from_init = true;
  train::train_acoustic(other, log_);
  const auto adopted = acoustic::load_acoustic_files(root_ / "other");
  EXPECT_EQ(adopted.weights->config().channels, first.config.channels);
  EXPECT_EQ(adopted.weights->parameters().size(),
            acoustic::load_acoustic_files(root_ / "first").weights->parameters().size());
}

TEST_F(AcousticTraining, AlignedMelsMatchTheRecordingsFramesAndFeedTheVocoderCorpus) {
  // 60 steps left one file's frames nearer 5 frames late once every alignment state had to sound.
  auto o = options("model", 120);
  o.ema_decay = 0.0f;
  train::train_acoustic(o, log_);
  train::AlignedMelOptions a;
  a.model_dir = root_ / "model";
  a.data_dir = root_ / "data";
  a.out_dir = root_ / "aligned";
  EXPECT_EQ(train::write_aligned_mels(a, log_), 6);

  // The vocoder's view of the same corpus: every training file gets frames of its own shape.
  train::AudioCorpusOptions corpus_options;
  corpus_options.features = o.features;
  train::AudioCorpus corpus = train::load_audio_corpus(root_ / "data", corpus_options);
  std::vector<std::string> warnings;
  EXPECT_EQ(train::attach_predicted_mels(corpus.training, a.out_dir, warnings),
            static_cast<int>(corpus.training.size()));
  EXPECT_TRUE(warnings.empty());
  // A trained model's aligned frames are nearer their own recording than the recording's mean
  // frame is (what a model that ignored the alignment would best predict), and nearer than the
  // same frames 5 frames late are.
  for (const auto& u : corpus.training) {
    ASSERT_EQ(u.predicted_mel.rows(), u.mel.rows());
    ASSERT_EQ(u.predicted_mel.cols(), u.mel.cols());
    const Eigen::Index n = u.mel.cols(), shift = 5;
    const kernels::Matrix mean_frame = u.mel.rowwise().mean().replicate(1, n);
    const double model_error = (u.predicted_mel - u.mel).cwiseAbs().mean();
    const double mean_error = (mean_frame - u.mel).cwiseAbs().mean();
    const double late_error =
        (u.predicted_mel.leftCols(n - shift) - u.mel.rightCols(n - shift)).cwiseAbs().mean();
    const double aligned_error =
        (u.predicted_mel.rightCols(n - shift) - u.mel.rightCols(n - shift)).cwiseAbs().mean();
    EXPECT_LT(model_error, mean_error) << u.id;
    EXPECT_LT(aligned_error, late_error) << u.id;
  }
}

TEST_F(AcousticTraining, PredictedMelsOfTheWrongShapeAreRefusedAndMissingOnesNamed) {
  train::AudioCorpusOptions corpus_options;
  train::AudioCorpus corpus = train::load_audio_corpus(root_ / "data", corpus_options);
  fs::create_directories(root_ / "predicted");
  const train::AudioUtterance& first = corpus.training.front();
  // Only the first file has frames, and one frame too few.
  std::vector<float> short_frames(
      static_cast<std::size_t>((first.mel.cols() - 1) * first.mel.rows()));
  kernels::write_npy(
      root_ / "predicted" / (first.id + ".npy"), short_frames.data(),
      {static_cast<std::size_t>(first.mel.cols() - 1), static_cast<std::size_t>(first.mel.rows())});
  std::vector<std::string> warnings;
  try {
    train::attach_predicted_mels(corpus.training, root_ / "predicted", warnings);
    FAIL() << "frames of the wrong shape were accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(first.id + ".npy"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr(std::to_string(first.mel.cols())));
  }
  // The right shape is taken as stored; the others are named as missing.
  std::vector<float> frames(static_cast<std::size_t>(first.mel.size()));
  for (std::size_t i = 0; i < frames.size(); ++i) frames[i] = static_cast<float>(i);
  kernels::write_npy(
      root_ / "predicted" / (first.id + ".npy"), frames.data(),
      {static_cast<std::size_t>(first.mel.cols()), static_cast<std::size_t>(first.mel.rows())});
  warnings.clear();
  EXPECT_EQ(train::attach_predicted_mels(corpus.training, root_ / "predicted", warnings), 1);
  const auto& p = corpus.training.front().predicted_mel;
  EXPECT_EQ(p(0, 0), 0.0f);
  EXPECT_EQ(p(1, 0), 1.0f);  // C-order (frames, n_mels): the second value is mel 1 of frame 0
  EXPECT_EQ(p(0, 1), static_cast<float>(first.mel.rows()));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], ::testing::HasSubstr(corpus.training[1].id));
  EXPECT_TRUE(corpus.training[1].predicted_mel.size() == 0);
}

TEST_F(AcousticTraining, InitFromAModelWithoutPitchAddsAFreshVarianceAdaptor) {
  // A model of acoustic format_version 2 (no variance adaptor), as the voices before it.
  auto old = options("old", 40);
  old.config.pitch_energy = false;
  old.ema_decay = 0.0f;
  const auto trained = train::train_acoustic(old, log_);
  // Its architecture taken over (as `tts train acoustic --init-from` without --config), with the
  // adaptor added: the shared tensors start as its own, so the first loss is near where it ended.
  auto grown = options("grown", 1);
  grown.init_from = root_ / "old";
  grown.architecture_from_init = true;
  grown.warmup_steps = 1000;
  grown.uniform_alignment_steps = 0;
  std::ostringstream log;
  const double continued = train::train_acoustic(grown, log).last_losses.mel;
  EXPECT_THAT(log.str(), ::testing::HasSubstr("the variance adaptor starts fresh"));
  EXPECT_LT(continued, 1.2 * trained.last_losses.mel + 0.05);
  const auto files = acoustic::load_acoustic_files(root_ / "grown");
  EXPECT_TRUE(files.weights->config().pitch_energy);
  EXPECT_EQ(files.weights->config().pitch_spread, 1.0f);
  EXPECT_GT(files.weights->config().pitch_std, 0.0f);
  EXPECT_NO_THROW(files.weights->parameters().index_of("pitch.embedding"));
}

TEST_F(AcousticTraining, TrainedLayersMoveAndEveryOtherTensorKeepsItsStartingWeights) {
  auto first = options("first", 20);
  first.ema_decay = 0.0f;
  train::train_acoustic(first, log_);
  const auto start = acoustic::load_acoustic_files(root_ / "first");
  auto adapted = options("adapted", 5);
  adapted.init_from = root_ / "first";
  adapted.trained_layers = {"pitch", "decoder.input"};
  std::ostringstream log;
  train::train_acoustic(adapted, log);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("(--train-layers)"));
  const auto result = acoustic::load_acoustic_files(root_ / "adapted");
  const auto& before = start.weights->parameters();
  const auto& after = result.weights->parameters();
  int moved = 0, kept = 0;
  for (const auto& entry : after.entries()) {
    const float* a = after.data() + entry.offset;
    const float* b = before.data() + before.entries()[before.index_of(entry.name)].offset;
    const bool same = std::equal(a, a + entry.size(), b);
    const bool trains = acoustic::layer_contains("pitch", entry.name) ||
                        acoustic::layer_contains("decoder.input", entry.name);
    if (trains) {
      moved += same ? 0 : 1;
    } else {
      EXPECT_TRUE(same) << entry.name << " moved although it was not trained";
      ++kept;
    }
  }
  EXPECT_GE(moved, 4) << "the pitch predictor and decoder.input should have moved";
  EXPECT_GT(kept, 20);
  // A layer that names no tensor is refused before training, naming it.
  auto typo = options("typo", 1);
  typo.init_from = root_ / "first";
  typo.trained_layers = {"pich"};
  try {
    train::train_acoustic(typo, log_);
    FAIL() << "an unknown layer was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("\"pich\""));
  }
}

// A run that trains only some layers normalises with the starting model's statistics even on a
// corpus whose own differ (the frozen decoder was fitted to them); a run that trains every layer
// measures its corpus's. Half the recordings make a corpus with statistics of its own.
TEST_F(AcousticTraining, TrainingSomeLayersKeepsTheStartingModelsCorpusStatistics) {
  auto first = options("first", 10);
  train::train_acoustic(first, log_);
  const auto start = acoustic::load_acoustic_files(root_ / "first").weights->config();

  const fs::path half = root_ / "half";
  fs::create_directories(half / "wavs");
  std::ofstream meta(half / "metadata.csv");
  for (const char* name : {"Front_Center", "Front_Left", "Rear_Right"}) {
    fs::copy_file(root_ / "data" / "wavs" / (std::string(name) + ".wav"),
                  half / "wavs" / (std::string(name) + ".wav"));
    std::string text = name;
    text[text.find('_')] = ' ';
    meta << name << "|" << text << "\n";
  }
  meta.close();

  auto everything = options("everything", 1);
  everything.data_dir = half;
  everything.init_from = root_ / "first";
  train::train_acoustic(everything, log_);
  const auto own = acoustic::load_acoustic_files(root_ / "everything").weights->config();
  ASSERT_NE(own.mel_mean, start.mel_mean) << "the half corpus should measure differently";
  ASSERT_NE(own.pitch_mean, start.pitch_mean);

  auto some = options("some", 1);
  some.data_dir = half;
  some.init_from = root_ / "first";
  some.trained_layers = {"pitch.embedding"};
  std::ostringstream log;
  train::train_acoustic(some, log);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("corpus statistics: the starting model's"));
  const auto kept = acoustic::load_acoustic_files(root_ / "some").weights->config();
  EXPECT_EQ(kept.mel_mean, start.mel_mean);
  EXPECT_EQ(kept.mel_std, start.mel_std);
  EXPECT_EQ(kept.pitch_mean, start.pitch_mean);
  EXPECT_EQ(kept.pitch_std, start.pitch_std);
  EXPECT_EQ(kept.energy_mean, start.energy_mean);
  EXPECT_EQ(kept.energy_std, start.energy_std);
}
