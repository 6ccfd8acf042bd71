// Entry point of the trainer, tts-train: the subcommands of `tts train`, which runs this program
// (the tts-train package). A program of its own so that MPI, which data-parallel training needs,
// is a dependency of the trainer alone.
#include "train_commands.h"

int main(int argc, char** argv) {
  using namespace tts::cli;
  prepare_process();
  // Named as the user calls it: `tts train` runs this program with the words after "train".
  CLI::App app{"Train models from recordings", "tts train"};
  app.footer(kExitCodesHelp);
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", [] { return version_text("tts-train"); },
      "Print the version, the compute backends built and the CPU kernels' ISA "
      "variant");

  int exit_code = kExitOk;
  register_train_acoustic(app, exit_code);
  register_train_aligned_mels(app, exit_code);
  register_train_acoustic_average(app, exit_code);
  register_train_score_acoustic(app, exit_code);
  register_train_calibrate_pitch(app, exit_code);
  register_train_vocoder(app, exit_code);
  return parse_and_run(app, argc, argv, exit_code, "tts train");
}
