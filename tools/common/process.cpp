// The start and the end of both programs' main(): process set-up, parsing and exit codes.
#include <malloc.h>

#include <cstdlib>
#include <exception>
#include <iostream>

#include "command_line.h"
#include "tts/build_info.h"
#include "tts/frontend/utf8.h"
#include "tts/kernels/cpu_isa.h"
#include "tts/kernels/device.h"
#include "tts/kernels/linear_algebra.h"

namespace tts::cli {

void prepare_process() {
  // glibc gives each thread that allocates an arena of its own, up to eight per core, and hands
  // little of it back: `tts serve`, whose requests run on ever new synthesis threads, grew from
  // 104 to 145 MB over 300 requests with them, and stays flat with two (docs/benchmarks.md,
  // Memory). MALLOC_ARENA_MAX, when the user sets it, wins.
  if (!std::getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, 2);
  // $TTS_ISA (tts/kernels/cpu_isa.h) names a variant the kernels cannot run: say which they run.
  if (const std::string note = tts::kernels::cpu_isa_note(); !note.empty())
    std::cerr << "tts: warning: " << note << "\n";
}

std::string version_text(const std::string& program) {
  std::string built;
  for (const auto& v : tts::kernels::cpu_isa_variants())
    built += std::string(built.empty() ? "" : ", ") + v.name + (v.runs_here ? "" : " (not here)");
  return program + " " + TTS_VERSION_STRING + "\n" + tts::kernels::describe_backends() +
         "\nCPU kernels: " + tts::kernels::cpu_kernel_isa() + "; built: " + built +
         " (TTS_ISA chooses)";
}

int parse_and_run(CLI::App& app, int argc, char** argv, const int& exit_code,
                  const std::string& program) {
  // CLI11 would call an unknown first word a missing subcommand; name it instead.
  const auto named = [&](CLI::App* sub) { return sub->check_name(argv[1]); };
  if (argc > 1 && argv[1][0] != '-' && app.get_subcommands(named).empty()) {
    std::cerr << program << ": unknown command \"" << tts::frontend::printable(argv[1])
              << "\" (see " << program << " --help)\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "tts: " << tts::frontend::printable(e.what()) << "\n";
    return kExitFailure;
  }
  return exit_code;
}

}  // namespace tts::cli
