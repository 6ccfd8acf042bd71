// The vocoder trainer's checkpoints: a run never overwrites one unasked, keeps the last good one
// through a non-finite loss or a failed write, resumes only the run it records (seed, step,
// checksums, fields), and clears the temporaries a killed write leaves, from the library and from
// the command line.
#include "tts/train/vocoder_checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_tts.h"
#include "temp_folder.h"
#include "tts/acoustic/weights.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/optimizer.h"
#include "tts/train/acoustic_checkpoint.h"
#include "tts/train/vocoder_trainer.h"
#include "tts/vocoder/model_files.h"
#include "vocoder_training_fixture.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;
using tts::testing_support::tensor_bytes;
using tts::testing_support::VocoderTraining;

namespace {

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

TEST_F(VocoderTraining, RefusesToOverwriteACheckpointWithoutResume) {
  train::train_vocoder(options("out", 5), log_);
  EXPECT_THROW(train::train_vocoder(options("out", 10), log_), std::runtime_error);
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
  train::VocoderTrainingState state;
  vocoder::WaveNetWeights shape(exploding.config);
  state.config = exploding.config;
  state.weights = state.ema = state.first_moment = state.second_moment = shape.parameters();
  train::load_vocoder_checkpoint(exploding.out_dir, state);
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
    const train::VocoderTrainingSummary s = train::train_vocoder(o, log);
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

  train::VocoderTrainingState vocoder;
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
    train::save_vocoder_checkpoint(dir, vocoder);
    edit(dir, "features", features);
    expect_cannot_resume(dir, [&] {
      train::VocoderTrainingState state = vocoder;
      train::load_vocoder_checkpoint(dir, state);
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

// A resume continues the run its checkpoint records: its mel features and its --data folder
// (recorded absolute, links resolved) are compared, and a change is refused naming it, before any
// work; otherwise the exported model would carry this run's features with weights trained on
// others. The same folder reached through a link resumes.
TEST_F(VocoderTraining, ResumeWithOtherFeaturesOrDataIsRefusedNamingWhatChanged) {
  train::train_vocoder(options("out", 5), log_);
  const auto before = tensor_bytes(root_ / "out");
  const nlohmann::json recorded = read_json(root_ / "out" / "checkpoint.json");
  EXPECT_EQ(recorded.at("data"), fs::canonical(root_ / "data").string());
  EXPECT_EQ(recorded.at("features").at("fmin"), 0.0);

  auto other_features = options("out", 10);
  other_features.resume = true;
  other_features.features.fmin = 50.0f;
  try {
    train::train_vocoder(other_features, log_);
    FAIL() << "a resume with other mel features was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot resume: the checkpoint's features differ"));
    EXPECT_THAT(e.what(), HasSubstr("fmin 0.0, this run's 50.0"));
  }

  fs::create_directories(root_ / "other");
  fs::copy_file(root_ / "data" / "clip.wav", root_ / "other" / "clip.wav");
  auto other_data = options("out", 10);
  other_data.resume = true;
  other_data.data_dir = root_ / "other";
  try {
    train::train_vocoder(other_data, log_);
    FAIL() << "a resume on another --data folder was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot resume: the checkpoint's data differ"));
    EXPECT_THAT(e.what(), HasSubstr(fs::canonical(root_ / "data").string()));
    EXPECT_THAT(e.what(), HasSubstr(fs::canonical(root_ / "other").string()));
  }
  EXPECT_EQ(read_json(root_ / "out" / "checkpoint.json").at("step"), 5);
  EXPECT_TRUE(tensor_bytes(root_ / "out") == before);

  write_json(root_ / "config.json", {{"wavenet", other_data.config}});
  const CommandResult r = run_tts("train vocoder --data " + other_data.data_dir.string() +
                                  " --config " + (root_ / "config.json").string() + " --out " +
                                  other_data.out_dir.string() + " --steps 10 --resume");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the checkpoint's data differ"));

  fs::create_directory_symlink(root_ / "data", root_ / "link");
  auto same_data = options("out", 10);
  same_data.resume = true;
  same_data.data_dir = root_ / "link";
  const auto summary = train::train_vocoder(same_data, log_);
  EXPECT_EQ(summary.last_step, 10);
}
