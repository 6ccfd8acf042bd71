// The `tts` command's own contract: help, version, unknown input and missing files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

Result run(const std::string& arguments) {
  const std::string command = std::string(TTS_BINARY_DIR) + "/tools/tts " + arguments + " 2>&1";
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
