// The `tts` command's own contract: help, version, unknown input and missing files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "temp_folder.h"

namespace {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line, its stderr with its stdout.
Result run_command(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  Result r{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    r.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Result run(const std::string& arguments) {
  return run_command(std::string(TTS_BINARY_DIR) + "/tools/tts " + arguments);
}

using ::testing::HasSubstr;

}  // namespace

TEST(Cli, HelpListsEverySubcommand) {
  const Result r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : {"say", "voices", "phonemize", "mel", "train", "vocode", "bench"})
    EXPECT_THAT(r.output, HasSubstr(std::string("\n  ") + sub)) << sub;
  EXPECT_THAT(r.output, HasSubstr("Exit codes"));
}

TEST(Cli, VersionSaysWhetherCudaWasBuilt) {
  const Result r = run("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("tts 0."));
  EXPECT_THAT(r.output, HasSubstr("CUDA backend: "));
}

TEST(Cli, UnknownCommandAndOptionAreUsageErrors) {
  Result r = run("speak hello");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown command \"speak\""));
  r = run("vocode x.wav -o y.wav --model m --no-such-option");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--no-such-option"));
}

TEST(Cli, MissingFilesAreNamed) {
  Result r = run("vocode /nonexistent/in.wav -o /tmp/out.wav --model /nonexistent/model");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.output, HasSubstr("/nonexistent/model"));
  r = run("train vocoder --data /nonexistent/data --out /tmp/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("/nonexistent/data"));
}

TEST(Cli, ASeedOutsideSixtyFourBitsIsAUsageError) {
  // CLI11 alone would wrap -1 round to 2^64 - 1 and clamp 2^64 to it: two seeds, one audio.
  for (const char* seed : {"-1", "18446744073709551616", "99999999999999999999999", "1.5", "0x10"})
    for (const char* command : {"say Hi. -o /tmp/tts_cli_test.wav",
                                "vocode /nonexistent.wav -o "
                                "/tmp/tts_cli_test.wav --model m"}) {
      SCOPED_TRACE(std::string(command) + " --seed " + seed);
      const Result r = run(std::string(command) + " --seed " + seed);
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_THAT(r.output, HasSubstr("a seed is a whole number from 0 to 18446744073709551615"));
    }
  // The largest is a seed: vocode goes on to its missing input.
  const Result r =
      run("vocode /nonexistent/in.wav -o /tmp/tts_cli_test.wav --model "
          "/nonexistent/model --seed 18446744073709551615");
  EXPECT_EQ(r.exit_code, 3) << r.output;
}

// `tts train` is the trainer, a program of its own (tts-train) beside the command.
TEST(Cli, TrainRunsTheTrainerWithEveryWordAfterTrain) {
  Result r = run("train vocoder --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Usage: tts train vocoder"));
  EXPECT_THAT(r.output, HasSubstr("--accumulate"));
  r = run("train --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* sub : {"acoustic", "aligned-mels", "acoustic-average", "vocoder"})
    EXPECT_THAT(r.output, HasSubstr(std::string("\n  ") + sub)) << sub;
  // The trainer's own usage errors and exit codes come back through the command.
  r = run("train nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown command \"nope\" (see tts train --help)"));
  r = run("train vocoder --data /nonexistent --out /tmp/never");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("/nonexistent"));
}

TEST(Cli, WithoutTheTrainerTrainSaysWhereToGetIt) {
  const tts::testing_support::TempFolder folder;
  const std::filesystem::path alone = folder.path() / "tts";
  std::filesystem::copy_file(std::filesystem::path(TTS_BINARY_DIR) / "tools" / "tts", alone);
  const Result r = run_command(alone.string() + " train vocoder --help");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("install the tts-train package"));
  EXPECT_THAT(r.output, HasSubstr((folder.path() / "tts-train").string()));
}
