// Entry point of the `tts` command: parses the command line and runs one subcommand.
#include "commands.h"

int main(int argc, char** argv) {
  using namespace tts::cli;
  prepare_process();
  CLI::App app{"tts: speech synthesis with a WaveNet voice"};
  app.footer(kExitCodesHelp);
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", [] { return version_text("tts"); },
      "Print the version, the compute backends built and the CPU kernels' ISA "
      "variant");

  int exit_code = kExitOk;
  register_say(app, exit_code);
  register_voices(app, exit_code);
  register_phonemize(app, exit_code);
  register_bench(app, exit_code);
  register_train_forwarding(app, exit_code);
  register_vocode(app, exit_code);
  register_mel(app, exit_code);
  register_pitch(app, exit_code);
  register_synth_mel(app, exit_code);
  register_serve(app, exit_code);
  register_devices(app, exit_code);
  return parse_and_run(app, argc, argv, exit_code, "tts");
}
