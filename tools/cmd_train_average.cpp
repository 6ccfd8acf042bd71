// `tts train acoustic-average`: one acoustic model whose weights are the mean of several runs'
// (a "model soup" of runs fine-tuned from one starting point with different seeds).
#include <iostream>

#include "commands.h"
#include "tts/frontend/acoustic/model_average.h"

namespace tts::cli {

void register_train_acoustic_average(CLI::App& train, int& exit_code) {
  auto runs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = train.add_subcommand(
      "acoustic-average",
      "Average the weights of acoustic models fine-tuned from one starting point");
  cmd->footer(
      "The runs must share the architecture, the corpus (its mel statistics), the features\n"
      "and the symbol table, and should all start from one model (`tts train acoustic\n"
      "--init-from RUN` with different --seed): models trained from different random\n"
      "initialisations do not average into a working model. OUT gets acoustic.json and\n"
      "acoustic.safetensors.");
  cmd->add_option("runs", *runs, "Acoustic model folders (`tts train acoustic` OUT folders)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--out", *out, "Output folder")->required();
  cmd->callback([=, &exit_code] {
    std::vector<std::filesystem::path> dirs(runs->begin(), runs->end());
    frontend::AcousticModelFiles average;
    try {
      average = frontend::average_acoustic_models(dirs);
    } catch (const std::exception& e) {
      std::cerr << "tts train acoustic-average: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    frontend::save_acoustic_model(*out, *average.weights, average.features, *average.symbols);
    std::cerr << "averaged " << dirs.size() << " acoustic model(s) into " << *out << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
