// Data-parallel training over MPI, through the real command: `mpirun -np 2 tts train …` on two
// CPU processes (oversubscribed: CI has 2 cores; OMPI_ALLOW_RUN_AS_ROOT since CI runs as root).
// Two ranks of batch B train the weights of one process of batch 2B; a run resumes under another
// world size with the same global batch; a rank that fails or dies ends the job with a message and
// leaves the last checkpoint intact; ranks started with different settings refuse to train.
//
// Tolerance: 1e-5 normalised weight difference after 6 Adam steps (fp32), as for gradient
// accumulation (training_accumulation_test.cpp, which explains it): each rank's gradient is the
// mean over its own crops or its share of the batch's, MPI_Allreduce adds the ranks' in its own
// order, and the vocoder's sum is scaled by 1/2 afterwards, so the gradient differs from the one
// process's by the order of sums only, which moves these weights by about 1e-6 (as other GEMM
// kernels on the same batch do). Training on other crops moves them by 2.4e-4 in these 6 steps
// of the command's slow warm-up (the control below: one process of batch 2).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "alsa_acoustic_corpus.h"
#include "checkpoint_values.h"
#include "tts/train/acoustic_checkpoint.h"
#include "tts/train/vocoder_checkpoint.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;
using testing_support::checkpoint_values;
using testing_support::normalised_difference;

namespace {

constexpr double kSameWeights = 1e-5;

struct Result {
  int exit_code = -1;
  std::string output;
};

// Runs a shell command line (stdout and stderr together) under a 120 s limit, so that a job
// whose ranks wait for each other forever fails instead of hanging the suite.
Result run(const std::string& command) {
  Result r;
  FILE* pipe = ::popen(("timeout 120 " + command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    r.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const std::string kTts = std::string(TTS_BINARY_DIR) + "/tools/tts";

// What every mpirun here runs under: as root (CI), and, in the sanitizer build, without
// LeakSanitizer in the ranks: Open MPI leaves its plugins' allocations behind at MPI_Finalize and
// unloads the plugins, so LSan cannot even name them for a suppression (checked with a C program
// that only calls MPI_Init, MPI_Allreduce and MPI_Finalize). Our code's leaks are checked by the
// suites that run the same trainers in one process.
const std::string kMpiEnv =
    "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 ";

// `mpirun -np N tts ARGS` (with `env` settings before it, e.g. the failure hook).
std::string mpirun(int ranks, const std::string& arguments, const std::string& env = "") {
  return kMpiEnv + env + " " + TTS_MPIEXEC + " --oversubscribe -np " + std::to_string(ranks) + " " +
         kTts + " " + arguments;
}

class DistributedTraining : public testing_support::AlsaAcousticCorpusTest {
 protected:
  void SetUp() override {
    AlsaAcousticCorpusTest::SetUp();
    fs::create_directories(root_ / "clip");
    fs::copy_file(testing_support::kSounds / "Front_Center.wav", root_ / "clip" / "clip.wav");
    std::ofstream(root_ / "vocoder.json")
        << R"({"wavenet": {"layers": 6, "dilation_cycle": 6, "residual_channels": 16,)"
        << R"( "skip_channels": 32}})";
    std::ofstream(root_ / "acoustic.json")
        << R"({"acoustic": {"channels": 16, "encoder_blocks": 2, "duration_channels": 8,)"
        << R"( "decoder_channels": 16, "decoder_blocks": 2}})";
  }
  // `train vocoder` of the tiny model on one clip into OUT, 2,000-sample crops.
  std::string vocoder(const std::string& out, const std::string& more) const {
    return "train vocoder --data " + (root_ / "clip").string() + " --out " +
           (root_ / out).string() + " --config " + (root_ / "vocoder.json").string() +
           " --crop 2000 --lr 3e-3 --validate-every 0 --log-every 1000 " + more;
  }
  // `train acoustic` of a tiny model on the six recordings: 3 flat-start steps, then search.
  std::string acoustic(const std::string& out, const std::string& more) const {
    return "train acoustic --data " + (root_ / "data").string() + " --out " +
           (root_ / out).string() + " --config " + (root_ / "acoustic.json").string() +
           " --lr 3e-3 --flat-start-steps 3 --validate-every 0 --log-every 1000 " + more;
  }
};

#define EXPECT_RUNS(result) EXPECT_EQ((result).exit_code, 0) << (result).output

}  // namespace

TEST_F(DistributedTraining, TwoVocoderRanksOfBatch2TrainTheWeightsOfOneProcessOfBatch4) {
  EXPECT_RUNS(run(kTts + " " + vocoder("one", "--steps 6 --batch 4")));
  const Result two = run(mpirun(2, vocoder("two", "--steps 6 --batch 2")));
  EXPECT_RUNS(two);
  EXPECT_THAT(two.output, HasSubstr("batch: 4 (2 ranks × 1 micro-batch × 2) crops per step"));
  // Each rank accumulating two micro-batches of one crop: the same four crops again.
  EXPECT_RUNS(run(mpirun(2, vocoder("accumulating", "--steps 6 --batch 1 --accumulate 2"))));
  const auto one = checkpoint_values(root_ / "one");
  const double d2 = normalised_difference(one, checkpoint_values(root_ / "two"));
  const double da = normalised_difference(one, checkpoint_values(root_ / "accumulating"));
  EXPECT_LT(d2, kSameWeights);
  EXPECT_LT(da, kSameWeights);
  EXPECT_RUNS(run(kTts + " " + vocoder("half", "--steps 6 --batch 2")));
  const double control = normalised_difference(one, checkpoint_values(root_ / "half"));
  EXPECT_GT(control, 1e-4);
  std::cout << "vocoder, 2 ranks × 2 against 1 × 4: " << d2 << "; 2 ranks × 2 × 1: " << da
            << "; 1 × 2: " << control << "\n";
  // Only rank 0 wrote: one log's lines (one "trained steps"), one set of files.
  const auto lines = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(lines(two.output, "trained steps 0..6"), 1u) << two.output;
}

TEST_F(DistributedTraining, TwoAcousticRanksOfBatch2TrainTheWeightsOfOneProcessOfBatch4) {
  EXPECT_RUNS(run(kTts + " " + acoustic("one", "--steps 6 --batch 4")));
  EXPECT_RUNS(run(mpirun(2, acoustic("two", "--steps 6 --batch 2"))));
  const double d =
      normalised_difference(checkpoint_values(root_ / "one"), checkpoint_values(root_ / "two"));
  EXPECT_LT(d, kSameWeights);
  std::cout << "acoustic, 2 ranks × 2 against 1 × 4: " << d << "\n";
}

TEST_F(DistributedTraining, AResumeUnderAnotherWorldSizeWithTheSameGlobalBatchContinuesTheRun) {
  EXPECT_RUNS(run(kTts + " " + vocoder("one", "--steps 8 --batch 4")));
  EXPECT_RUNS(run(mpirun(2, vocoder("moved", "--steps 4 --batch 2"))));
  EXPECT_RUNS(run(kTts + " " + vocoder("moved", "--steps 8 --batch 4 --resume")));
  EXPECT_LT(
      normalised_difference(checkpoint_values(root_ / "one"), checkpoint_values(root_ / "moved")),
      kSameWeights);
  // And the acoustic model the other way: one process, then two ranks.
  EXPECT_RUNS(run(kTts + " " + acoustic("a-one", "--steps 6 --batch 4")));
  EXPECT_RUNS(run(kTts + " " + acoustic("a-moved", "--steps 4 --batch 4")));
  EXPECT_RUNS(run(mpirun(2, acoustic("a-moved", "--steps 6 --batch 2 --resume"))));
  EXPECT_LT(normalised_difference(checkpoint_values(root_ / "a-one"),
                                  checkpoint_values(root_ / "a-moved")),
            kSameWeights);
  // Another global batch is refused on every rank, naming what to keep.
  const Result other = run(mpirun(2, vocoder("moved", "--steps 10 --batch 4 --resume")));
  EXPECT_NE(other.exit_code, 0);
  EXPECT_THAT(other.output, HasSubstr("keep ranks × --accumulate × --batch at 4"));
}

TEST_F(DistributedTraining, ARankThatFailsEndsTheJobSayingWhichAndKeepsTheLastCheckpoint) {
  const Result r = run(mpirun(2, vocoder("run", "--steps 8 --batch 2 --checkpoint-every 2"),
                              "TTS_TEST_RANK_FAILURE=1:5"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("tts: rank 1 of 2: rank 1 fails before step 5"));
  EXPECT_THAT(r.output, HasSubstr("ending every rank"));
  // The last checkpoint is whole: its checksums match, and the run resumes from it. Which one it
  // is depends on how far rank 0 got before the abort reached it: step 4's, or step 2's when the
  // abort came while it was writing step 4's (whose temporaries the resume removes).
  const int64_t step = train::read_vocoder_checkpoint_header(root_ / "run").at("step");
  EXPECT_TRUE(step == 2 || step == 4) << step;
  EXPECT_RUNS(run(mpirun(2, vocoder("run", "--steps 8 --batch 2 --checkpoint-every 2 --resume"))));
}

TEST_F(DistributedTraining, ARankThatDiesEndsTheJobAndKeepsTheLastCheckpoint) {
  // Killed (SIGKILL) as a crash or the out-of-memory killer would: mpirun ends the other rank.
  const Result r = run(mpirun(2, acoustic("run", "--steps 8 --batch 2 --checkpoint-every 2"),
                              "TTS_TEST_RANK_FAILURE=1:5:kill"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.exit_code == 124, false) << "the job hung: " << r.output;
  EXPECT_THAT(r.output, HasSubstr("rank 1"));
  EXPECT_THAT(r.output, HasSubstr("signal 9"));
  const int64_t step = train::read_acoustic_checkpoint_header(root_ / "run").at("step");
  EXPECT_TRUE(step == 2 || step == 4) << step;  // as above
  EXPECT_RUNS(run(mpirun(2, acoustic("run", "--steps 8 --batch 2 --checkpoint-every 2 --resume"))));
}

TEST_F(DistributedTraining, RanksStartedWithDifferentSettingsRefuseToTrain) {
  // Open MPI's MPMD form: rank 0 and rank 1 run different command lines.
  const std::string command = kMpiEnv + TTS_MPIEXEC + " --oversubscribe -np 1 " + kTts + " " +
                              vocoder("run", "--steps 4 --seed 1") + " : -np 1 " + kTts + " " +
                              vocoder("run", "--steps 4 --seed 2");
  const Result r = run(command);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("the ranks disagree about the run's settings"));
  EXPECT_THAT(r.output, HasSubstr("rank 1 has"));
  EXPECT_FALSE(fs::exists(root_ / "run" / "checkpoint.json"));
}
