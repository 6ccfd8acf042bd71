// `tts train acoustic-average`: one acoustic model whose weights are the mean of several runs'
// (a "model soup" of runs fine-tuned from one starting point with different seeds), optionally
// moved part of the way back toward that starting point (--base).
#include <iostream>
#include <map>

#include "commands.h"
#include "tts/frontend/acoustic/model_average.h"

namespace tts::cli {

void register_train_acoustic_average(CLI::App& train, int& exit_code) {
  auto runs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto base = std::make_shared<std::string>();
  auto share = std::make_shared<double>(0.0);
  auto layers = std::make_shared<frontend::InterpolatedLayers>(frontend::InterpolatedLayers::all);
  CLI::App* cmd = train.add_subcommand(
      "acoustic-average",
      "Average the weights of acoustic models fine-tuned from one starting point");
  cmd->footer(
      "The runs must share the architecture, the corpus (its mel statistics), the features\n"
      "and the symbol table, and should all start from one model (`tts train acoustic\n"
      "--init-from RUN` with different --seed): models trained from different random\n"
      "initialisations do not average into a working model. OUT gets acoustic.json and\n"
      "acoustic.safetensors.\n\n"
      "--base RUN --base-share A mixes the average with RUN, the model the runs were\n"
      "fine-tuned from: (1 - A) average + A base, over every layer or (--base-layers text)\n"
      "only the embedding, encoder and duration predictor. RUN may come from another corpus:\n"
      "it is restated in the runs' mel statistics first.");
  cmd->add_option("runs", *runs, "Acoustic model folders (`tts train acoustic` OUT folders)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--out", *out, "Output folder")->required();
  CLI::Option* base_option =
      cmd->add_option("--base", *base, "The model the runs were fine-tuned from")
          ->check(CLI::ExistingDirectory);
  CLI::Option* share_option =
      cmd->add_option("--base-share", *share, "Share of the base in the result (0 to 1)")
          ->check(CLI::Range(0.0, 1.0))
          ->needs(base_option);
  base_option->needs(share_option);  // a base without a share would silently change nothing
  const std::map<std::string, frontend::InterpolatedLayers> layer_names = {
      {"all", frontend::InterpolatedLayers::all},
      {"text", frontend::InterpolatedLayers::text_side}};
  cmd->add_option("--base-layers", *layers, "Layers mixed with the base: all or text")
      ->transform(CLI::CheckedTransformer(layer_names))
      ->needs(base_option);
  cmd->callback([=, &exit_code] {
    std::vector<std::filesystem::path> dirs(runs->begin(), runs->end());
    frontend::AcousticModelFiles average;
    try {
      average = frontend::average_acoustic_models(dirs);
      if (!base->empty()) {
        const frontend::AcousticModelFiles base_model = frontend::load_acoustic_files(*base);
        frontend::interpolate_toward_base(average, base_model, *share, *layers);
      }
    } catch (const std::exception& e) {
      std::cerr << "tts train acoustic-average: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    frontend::save_acoustic_model(*out, *average.weights, average.features, *average.symbols);
    std::cerr << "averaged " << dirs.size() << " acoustic model(s)";
    if (!base->empty()) std::cerr << ", mixed with " << *share << " of " << *base;
    std::cerr << ", into " << *out << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
