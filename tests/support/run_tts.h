// Runs the built `tts` command with arguments (a shell word list) and collects what it prints, for
// tests of the command line. TTS_BINARY_DIR comes from tests/CMakeLists.txt.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

struct CommandResult {
  int exit_code = -1;  // -1 when it could not be run or was killed by a signal
  std::string output;  // stdout and stderr together
};

inline CommandResult run_tts(const std::string& arguments) {
  const std::string command = std::string(TTS_BINARY_DIR) + "/tools/tts " + arguments + " 2>&1";
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    r.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}
