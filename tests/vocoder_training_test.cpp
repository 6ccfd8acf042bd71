// Training the vocoder end to end on real recorded speech: it learns, resumes exactly, and survives
// bad data and failed writes without losing the last good checkpoint.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "clip_corpus_test.h"
#include "run_tts.h"
#include "temp_folder.h"
#include "tts/acoustic/weights.h"
#include "tts/audio/audio_file.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/device.h"
#include "tts/kernels/optimizer.h"
#include "tts/kernels/safetensors.h"
#include "tts/train/acoustic_checkpoint.h"
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

class VocoderTraining : public tts::testing_support::ClipCorpusTest {
 protected:
  VocoderTraining() : ClipCorpusTest("tts-train-") {}

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

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write_json(const fs::path& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(2); }

// Flips one bit of the byte `from_end` bytes before the end of `path`.
void flip_byte(const fs::path& path, std::streamoff from_end) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(-from_end, std::ios::end);
  char c = 0;
  f.get(c);
  f.seekp(-from_end, std::ios::end);
  f.put(static_cast<char>(c ^ 0x10));
}

// Starts an atomic write of `path` in a child process and kills the child (SIGKILL) before the
// rename, as a crash would: its temporary stays behind. Returns the child's (now dead) pid.
pid_t kill_a_write(const fs::path& path) {
  const pid_t child = ::fork();
  if (child == 0) {
    kernels::write_file_atomically(path, [](std::ostream& out) {
      out << "{\"partial";
      out.flush();
      ::kill(::getpid(), SIGKILL);
    });
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  return child;
}

std::vector<std::string> file_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
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

// A resumed run continues the run its checkpoint records, or says why it cannot.
TEST_F(VocoderTraining, ResumeWithAnotherSeedIsRefusedNamingBothSeeds) {
  train::train_vocoder(options("out", 5), log_);
  const auto before = tensor_bytes(root_ / "out");
  auto other = options("out", 10);
  other.resume = true;
  other.seed = 2;
  try {
    train::train_vocoder(other, log_);
    FAIL() << "a resume with another seed was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--seed 1"));
    EXPECT_THAT(e.what(), HasSubstr("--seed 2"));
  }
  EXPECT_EQ(read_json(root_ / "out" / "checkpoint.json").at("step"), 5);
  EXPECT_TRUE(tensor_bytes(root_ / "out") == before);
}

TEST_F(VocoderTraining, ResumeWithoutACheckpointIsAnError) {
  auto o = options("empty", 5);
  o.resume = true;
  try {
    train::train_vocoder(o, log_);
    FAIL() << "--resume without a checkpoint started a run";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no checkpoint"));
    EXPECT_THAT(e.what(), HasSubstr((root_ / "empty").string()));
  }
  EXPECT_FALSE(fs::exists(root_ / "empty" / "checkpoint.json"));
}

TEST_F(VocoderTraining, ResumeAtOrBelowTheCheckpointsStepTrainsNothingAndSaysSo) {
  train::train_vocoder(options("out", 5), log_);
  const auto before = tensor_bytes(root_ / "out");
  for (int64_t steps : {5, 3}) {
    auto o = options("out", steps);
    o.resume = true;
    std::ostringstream log;
    const train::TrainingSummary s = train::train_vocoder(o, log);
    EXPECT_EQ(s.first_step, 5);
    EXPECT_EQ(s.last_step, 5);
    EXPECT_THAT(log.str(), HasSubstr("already trained to step 5; ask for more --steps"));
    EXPECT_THAT(log.str(), ::testing::Not(HasSubstr("corpus:"))) << "nothing to load for no steps";
  }
  EXPECT_TRUE(tensor_bytes(root_ / "out") == before);
}

TEST_F(VocoderTraining, ResumeRefusesACheckpointWithAFlippedByteNamingTheFile) {
  train::train_vocoder(options("out", 5), log_);
  const auto recorded = read_json(root_ / "out" / "checkpoint.json");
  ASSERT_TRUE(recorded.contains("files")) << recorded.dump(2);
  flip_byte(root_ / "out" / "checkpoint-5.safetensors", 100);  // inside the Adam moments
  auto more = options("out", 10);
  more.resume = true;
  std::ostringstream log;
  try {
    train::train_vocoder(more, log);
    FAIL() << "a damaged checkpoint was resumed";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("checkpoint-5.safetensors"));
    EXPECT_THAT(e.what(), HasSubstr("CRC-32"));
  }
  EXPECT_THAT(log.str(), ::testing::Not(HasSubstr("corpus:"))) << "refused before any work";
  EXPECT_EQ(read_json(root_ / "out" / "checkpoint.json"), recorded)
      << "the checkpoint was replaced";
  EXPECT_FALSE(fs::exists(root_ / "out" / "checkpoint-10.safetensors"));
}

// checkpoint.json's step and seed are checked against the weights they name: an edited step
// would resume the weights of one step as another's, or end the run as already trained.
TEST_F(VocoderTraining, ResumeRefusesAnEditedStepOrSeed) {
  train::train_vocoder(options("out", 5), log_);
  const fs::path json = root_ / "out" / "checkpoint.json";
  const auto recorded = read_json(json);
  auto refused = [&](const nlohmann::json& edited, uint64_t seed) {
    write_json(json, edited);
    auto more = options("out", 10);
    more.resume = true;
    more.seed = seed;
    std::ostringstream log;
    try {
      train::train_vocoder(more, log);
      ADD_FAILURE() << "resumed from " << edited.dump();
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("checkpoint.json: cannot resume"));
      EXPECT_THAT(e.what(), HasSubstr("edited"));
    }
    EXPECT_FALSE(fs::exists(root_ / "out" / "checkpoint-10.safetensors"));
  };
  for (int64_t step : {3, 900}) {  // earlier, and past the run's end (not "already trained")
    nlohmann::json edited = recorded;
    edited["step"] = step;
    refused(edited, recorded.at("seed").get<uint64_t>());
  }
  // Step, weights name and checksum record all edited together, the file renamed to match: the
  // weights' own record of their step still tells.
  nlohmann::json forged = recorded;
  forged["step"] = 3;
  forged["weights"] = "checkpoint-3.safetensors";
  forged["files"][0]["path"] = "checkpoint-3.safetensors";
  fs::rename(root_ / "out" / "checkpoint-5.safetensors",
             root_ / "out" / "checkpoint-3.safetensors");
  refused(forged, recorded.at("seed").get<uint64_t>());
  fs::rename(root_ / "out" / "checkpoint-3.safetensors",
             root_ / "out" / "checkpoint-5.safetensors");
  // A seed edited to match another --seed.
  nlohmann::json reseeded = recorded;
  reseeded["seed"] = 99;
  refused(reseeded, 99);
  // The checkpoint as written still resumes.
  write_json(json, recorded);
  auto more = options("out", 10);
  more.resume = true;
  EXPECT_EQ(train::train_vocoder(more, log_).last_step, 10);
}

TEST_F(VocoderTraining, ACheckpointWithoutChecksumsResumesWithAWarning) {
  train::train_vocoder(options("out", 5), log_);
  // As written before checkpoints carried checksums.
  nlohmann::json j = read_json(root_ / "out" / "checkpoint.json");
  j.erase("files");
  write_json(root_ / "out" / "checkpoint.json", j);
  auto more = options("out", 10);
  more.resume = true;
  std::ostringstream log;
  EXPECT_EQ(train::train_vocoder(more, log).last_step, 10);
  EXPECT_THAT(log.str(), HasSubstr("warning: "));
  EXPECT_THAT(log.str(), HasSubstr("no checksum"));
  EXPECT_TRUE(read_json(root_ / "out" / "checkpoint.json").contains("files"))
      << "the next checkpoint has them again";
}

TEST_F(VocoderTraining, TemporariesOfAKilledWriteAreRemovedOnTheNextWriteOrResume) {
  // Killed during its first checkpoint: no checkpoint, so the next run starts afresh and writes.
  fs::create_directories(root_ / "first");
  const pid_t first = kill_a_write(root_ / "first" / "checkpoint-5.safetensors");
  const std::string first_temporary = "checkpoint-5.safetensors.tmp-" + std::to_string(first);
  ASSERT_THAT(file_names(root_ / "first"), ::testing::Contains(HasSubstr(first_temporary)));
  train::train_vocoder(options("first", 5), log_);
  EXPECT_THAT(file_names(root_ / "first"),
              ::testing::Not(::testing::Contains(HasSubstr(first_temporary))));

  // Killed while replacing checkpoint.json: the resume cleans up.
  train::train_vocoder(options("out", 5), log_);
  const pid_t dead = kill_a_write(root_ / "out" / "checkpoint.json");
  const std::string temporary = "checkpoint.json.tmp-" + std::to_string(dead);
  ASSERT_THAT(file_names(root_ / "out"), ::testing::Contains(HasSubstr(temporary)));
  // Files that only look like temporaries, and a live process's (this one's), are left alone.
  const std::vector<std::string> others = {
      "notes.tmp", "checkpoint.json.tmp-backup", "checkpoint.json.tmp-1-2.bak",
      "checkpoint.json.tmp-" + std::to_string(::getpid()) + "-999999999"};
  for (const auto& name : others) std::ofstream(root_ / "out" / name) << "keep";
  auto more = options("out", 5);
  more.resume = true;  // nothing to train, so nothing written: the resume itself cleans up
  train::train_vocoder(more, log_);
  const auto names = file_names(root_ / "out");
  EXPECT_THAT(names, ::testing::Not(::testing::Contains(HasSubstr(temporary))));
  for (const auto& name : others) EXPECT_THAT(names, ::testing::Contains(name));
}

// The same cases from the command line, as a user meets them.
TEST_F(VocoderTraining, ResumeFromTheCommandLineSaysWhatIsWrong) {
  const auto o = options("out", 5);
  train::train_vocoder(o, log_);
  write_json(root_ / "config.json", {{"wavenet", o.config}});
  const std::string common = "train vocoder --data " + o.data_dir.string() + " --config " +
                             (root_ / "config.json").string() + " --resume";
  CommandResult r = run_tts(common + " --out " + o.out_dir.string() + " --steps 5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("already trained to step 5; ask for more --steps"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("trained steps"))) << "no made-up summary line";
  r = run_tts(common + " --out " + o.out_dir.string() + " --steps 10 --seed 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--seed 1"));
  EXPECT_THAT(r.output, HasSubstr("--seed 2"));
  r = run_tts(common + " --out " + (root_ / "none").string() + " --steps 10");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no checkpoint"));
  EXPECT_FALSE(fs::exists(root_ / "none" / "checkpoint.json"));
}

// Found by fuzz/checkpoint_fuzz (seeds fuzz/corpus/checkpoint/*_wrong_field): checkpoint.json's
// "features" (vocoder) and "run_seed" (acoustic) were read after the checks, so a missing or
// malformed one escaped as a JSON or invalid_argument exception instead of "cannot resume".
TEST(Checkpoint, AMalformedFieldReadAfterTheWeightsIsACannotResumeError) {
  const testing_support::TempFolder root;
  auto edit = [](const fs::path& dir, const char* key, const nlohmann::json& value) {
    std::ifstream in(dir / "checkpoint.json");
    auto j = nlohmann::json::parse(in);
    if (value.is_null())
      j.erase(key);
    else
      j[key] = value;
    std::ofstream(dir / "checkpoint.json") << j.dump();
  };
  auto expect_cannot_resume = [](const fs::path& dir, const std::function<void()>& load) {
    try {
      load();
      FAIL() << "a damaged checkpoint.json was resumed from";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr((dir / "checkpoint.json").string()));
      EXPECT_THAT(e.what(), HasSubstr("cannot resume"));
    }
  };

  train::TrainingState vocoder;
  vocoder.config.layers = 2;
  vocoder.config.residual_channels = 3;
  vocoder.config.skip_channels = 4;
  vocoder.config.classes = 5;
  vocoder.config.mel_channels = 2;
  vocoder.weights = vocoder::WaveNetWeights(vocoder.config).parameters();
  vocoder.ema = vocoder.first_moment = vocoder.second_moment = vocoder.weights;
  for (const nlohmann::json& features :
       {nlohmann::json(), nlohmann::json("x"), nlohmann::json({{"n_mels", -1}})}) {
    const fs::path dir = root / "vocoder";
    train::save_checkpoint(dir, vocoder);
    edit(dir, "features", features);
    expect_cannot_resume(dir, [&] {
      train::TrainingState state = vocoder;
      train::load_checkpoint(dir, state);
    });
  }

  train::AcousticTrainingState acoustic;
  acoustic.config.symbols = 7;
  acoustic.config.channels = 4;
  acoustic.config.encoder_blocks = 1;
  acoustic.config.decoder_channels = 4;
  acoustic.config.decoder_blocks = 1;
  acoustic.config.duration_channels = 3;
  acoustic.config.n_mels = 2;
  acoustic.config.variance_channels = 3;
  acoustic.config.variance_bins = 4;
  acoustic.features.n_mels = 2;
  acoustic.weights = acoustic::AcousticWeights(acoustic.config).parameters();
  acoustic.ema = acoustic.first_moment = acoustic.second_moment = acoustic.weights;
  const fs::path dir = root / "acoustic";
  train::save_acoustic_checkpoint(dir, acoustic);
  edit(dir, "run_seed", "seven");
  expect_cannot_resume(dir, [&] {
    train::AcousticTrainingState state = acoustic;
    train::load_acoustic_checkpoint(dir, state);
  });
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
// when the audio is read (both trainers load their corpus through load_corpus).
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

  train::CorpusOptions options;
  options.threads = 1;
  const train::Corpus corpus = train::load_corpus(root_ / "lj", options);
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
