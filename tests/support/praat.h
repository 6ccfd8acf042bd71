// Praat, the phonetics program, run headless (`praat --run`) as an independent judge in tests:
// the pitch tracker's F0 and the pitch shift's formants are checked against it.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace tts::test {

// The praat command on PATH, or "" when it is not installed.
inline std::string find_praat() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path candidate =
        std::filesystem::path(dir.empty() ? "." : dir) / "praat";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

struct PraatRun {
  int status = -1;     // pclose's status: 0 when the script ran to its end
  std::string output;  // what it printed, stdout and stderr
  std::string command;
};

// `praat --run SCRIPT ARGS...`, each argument quoted for the shell.
inline PraatRun run_praat(const std::string& praat, const std::filesystem::path& script,
                          const std::vector<std::string>& args) {
  PraatRun run;
  run.command = "'" + praat + "' --run '" + script.string() + "'";
  for (const std::string& a : args) run.command += " '" + a + "'";
  run.command += " 2>&1";
  FILE* pipe = ::popen(run.command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.output.append(buffer, got);
  run.status = ::pclose(pipe);
  return run;
}

}  // namespace tts::test
