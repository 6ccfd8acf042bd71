// Entry point of the `tts` command: parses the command line and runs one subcommand.
#include <malloc.h>

#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "tts/build_info.h"
#include "tts/frontend/utf8.h"
#include "tts/kernels/cpu_isa.h"
#include "tts/kernels/device.h"
#include "tts/kernels/linear_algebra.h"

int main(int argc, char** argv) {
  using namespace tts::cli;
  // glibc gives each thread that allocates an arena of its own, up to eight per core, and hands
  // little of it back: `tts serve`, whose requests run on ever new synthesis threads, grew from
  // 104 to 145 MB over 300 requests with them, and stays flat with two (docs/benchmarks.md,
  // Memory). MALLOC_ARENA_MAX, when the user sets it, wins.
  if (!std::getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, 2);
  CLI::App app{"tts: speech synthesis with a WaveNet voice"};
  app.footer(
      "Exit codes: 0 success, 1 failure, 2 usage error, 3 bad input (file, text or voice),\n"
      "4 no audio device (write to a file with -o instead).");
  app.require_subcommand(1);
  app.set_version_flag(
      "--version",
      [] {
        std::string built;
        for (const auto& v : tts::kernels::cpu_isa_variants())
          built +=
              std::string(built.empty() ? "" : ", ") + v.name + (v.runs_here ? "" : " (not here)");
        return std::string("tts ") + TTS_VERSION_STRING + "\n" + tts::kernels::describe_backends() +
               "\nCPU kernels: " + tts::kernels::cpu_kernel_isa() + "; built: " + built +
               " (TTS_ISA chooses)";
      },
      "Print the version, the compute backends built and the CPU kernels' ISA variant");

  // $TTS_ISA (tts/kernels/cpu_isa.h) names a variant the kernels cannot run: say which they run.
  if (const std::string note = tts::kernels::cpu_isa_note(); !note.empty())
    std::cerr << "tts: warning: " << note << "\n";

  int exit_code = kExitOk;
  register_say(app, exit_code);
  register_voices(app, exit_code);
  register_phonemize(app, exit_code);
  register_bench(app, exit_code);
  register_train(app, exit_code);
  register_vocode(app, exit_code);
  register_mel(app, exit_code);
  register_pitch(app, exit_code);
  register_synth_mel(app, exit_code);
  register_serve(app, exit_code);
  register_devices(app, exit_code);

  // CLI11 would call an unknown first word a missing subcommand; name it instead.
  const auto named = [&](CLI::App* sub) { return sub->check_name(argv[1]); };
  if (argc > 1 && argv[1][0] != '-' && app.get_subcommands(named).empty()) {
    std::cerr << "tts: unknown command \"" << tts::frontend::printable(argv[1])
              << "\" (see tts --help)\n";
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
