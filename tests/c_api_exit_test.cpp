// A program that returns from main with a synthesis running must exit cleanly: no signal (the
// workers once crashed in a GEMM as the process tore down), no hang (in espeak-ng's exit
// handler). The program is tests/support/exit_with_stream.c, run 20 times under a timeout.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

namespace {

TEST(CApiExit, ReturningFromMainWithAStreamRunningExitsCleanly) {
  // The program never frees its voice and stream, on purpose: a leak checker (sanitizer builds)
  // would report them and change the exit status this test reads.
  const std::string command = std::string("ASAN_OPTIONS=detect_leaks=0 timeout 30 ") +
                              TTS_BINARY_DIR + "/tests/exit_with_stream " + TTS_SOURCE_DIR +
                              "/voices/default";
  for (int run = 0; run < 20; ++run) {
    int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "run " << run << ": killed by a signal";
    ASSERT_NE(WEXITSTATUS(status), 124) << "run " << run << ": hung at exit";
    ASSERT_EQ(WEXITSTATUS(status), 0) << "run " << run << ": crashed or failed";
  }
}

}  // namespace
