// `tts train ...`: the trainers are a program of their own, tts-train (tools/train/), installed
// beside this one by the tts-train package, so that the tts command carries no MPI. This
// subcommand hands every word after "train" to it, in this same process (execv): under mpirun
// each rank's `tts` becomes that rank's trainer, with the launcher's environment kept.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

namespace tts::cli {

namespace {

// The trainer beside this program: BINDIR/tts-train once installed, tools/tts-train in a build.
std::filesystem::path trainer_beside_this_program() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return self.parent_path() / "tts-train";
}

int run_trainer(const std::vector<std::string>& words) {
  const std::filesystem::path trainer = trainer_beside_this_program();
  if (trainer.empty() || access(trainer.c_str(), X_OK) != 0) {
    std::cerr << "tts: `tts train` needs the trainer, "
              << (trainer.empty() ? "tts-train" : trainer.string())
              << ", which is not installed: install the tts-train package (sudo apt install "
                 "tts-train), or build it from source (cmake --build BUILD --target tts-train)\n";
    return kExitFailure;
  }
  std::vector<std::string> arguments{"tts-train"};
  arguments.insert(arguments.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (std::string& word : arguments) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(trainer.c_str(), argv.data());
  std::cerr << "tts: cannot run the trainer " << trainer.string() << ": " << std::strerror(errno)
            << "\n";
  return kExitFailure;
}

}  // namespace

void register_train_forwarding(CLI::App& app, int& exit_code) {
  CLI::App* train = app.add_subcommand(
      "train", "Train models from recordings (the trainer, tts-train: see tts train --help)");
  // Everything after "train", --help included, is the trainer's to parse.
  train->prefix_command();
  train->allow_extras();
  train->set_help_flag();
  train->callback([train, &exit_code] { exit_code = run_trainer(train->remaining()); });
}

}  // namespace tts::cli
