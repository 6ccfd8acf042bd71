// What the tts command and the trainer (tts-train) share: their exit codes and the checks and
// readers of options both take (tools/common/, the library tts_command_line).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace tts::cli {

// Exit codes shared by every subcommand (documented in `tts --help`).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   // the command ran and failed (synthesis, training, I/O)
  kExitUsage = 2,     // bad options or arguments
  kExitBadInput = 3,  // unreadable or malformed input file, text or voice
  kExitNoDevice = 4,  // no audio output device (use -o FILE)
};

// The footer of both programs' --help, which explains the codes above.
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 success, 1 failure, 2 usage error, 3 bad input (file, text or voice),\n"
    "4 no audio device (write to a file with -o instead).";

// Checks a --seed: decimal digits for a number from 0 to 2^64 - 1. Without it CLI11 wraps "-1"
// round to 2^64 - 1 and clamps a number past 2^64 to it, so that two different seeds given would
// sample alike.
CLI::Validator seed_validator();

// The JSON document of a --config file; CLI::ValidationError (a usage error) naming it otherwise.
nlohmann::json read_config_file(const std::string& path);

// Sets up what both programs do before parsing: glibc's malloc arenas bounded, and a warning when
// $TTS_ISA names a CPU kernel variant this machine cannot run.
void prepare_process();

// "PROGRAM VERSION", the compute backends built and the CPU kernels' variants (--version).
std::string version_text(const std::string& program);

// Parses and runs `app`, mapping CLI11's errors and an escaping exception (printed after
// "PROGRAM: ") to the exit codes above; `exit_code` is what the subcommand that ran set.
int parse_and_run(CLI::App& app, int argc, char** argv, const int& exit_code,
                  const std::string& program);

}  // namespace tts::cli
