// `tts train acoustic-average`: one acoustic model whose weights are the mean of several runs'
// (a "model soup" of runs fine-tuned from one starting point with different seeds), optionally
// moved part of the way back toward that starting point (--base).
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "train_commands.h"
#include "tts/acoustic/model_average.h"

namespace tts::cli {

namespace {

// "decoder.5=0.2" → {"decoder.5", 0.2}; throws std::invalid_argument naming the text otherwise.
// The range is checked by the option's validator and again where the shares are applied.
acoustic::MixShares::Layer parse_layer_share(const std::string& text) {
  const std::size_t equals = text.find('=');
  const auto malformed = [&] {
    return std::invalid_argument("--layer-share \"" + text +
                                 "\": expected LAYER=SHARE, e.g. decoder.5=0.2");
  };
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) throw malformed();
  const std::string number = text.substr(equals + 1);
  std::size_t used = 0;
  double share = 0.0;
  try {
    share = std::stod(number, &used);
  } catch (const std::exception&) {
    throw malformed();
  }
  if (used != number.size()) throw malformed();
  return {text.substr(0, equals), share};
}

}  // namespace

void register_train_acoustic_average(CLI::App& train, int& exit_code) {
  auto runs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto base = std::make_shared<std::string>();
  auto share = std::make_shared<double>(0.0);
  auto text_only = std::make_shared<bool>(false);
  auto layer_shares = std::make_shared<std::vector<std::string>>();
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
      "only the embedding, encoder and duration predictor. --layer-share LAYER=S (repeatable)\n"
      "gives the layers whose tensor names start with LAYER their own share S, e.g.\n"
      "--layer-share decoder.5=0 --layer-share decoder.output=0 (the names of\n"
      "acoustic/weights.h; docs/acoustic-model.md). RUN may come from another corpus:\n"
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
  const std::map<std::string, bool> layer_names = {{"all", false}, {"text", true}};
  cmd->add_option("--base-layers", *text_only, "Layers mixed with the base: all or text")
      ->transform(CLI::CheckedTransformer(layer_names))
      ->needs(base_option);
  cmd->add_option("--layer-share", *layer_shares,
                  "LAYER=S: the share of the base for the tensors LAYER names (repeatable)")
      ->check(CLI::Validator(
          [](std::string& text) {
            try {
              const acoustic::MixShares::Layer layer = parse_layer_share(text);
              if (!(layer.share >= 0.0 && layer.share <= 1.0))
                return "--layer-share \"" + text + "\": the share must be between 0 and 1";
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
            return std::string();
          },
          "LAYER=SHARE"))
      ->needs(base_option);
  cmd->callback([=, &exit_code] {
    std::vector<std::filesystem::path> dirs(runs->begin(), runs->end());
    acoustic::AcousticModelFiles average;
    try {
      average = acoustic::average_acoustic_models(dirs);
      if (!base->empty()) {
        const acoustic::AcousticModelFiles base_model = acoustic::load_acoustic_files(*base);
        acoustic::MixShares shares;
        if (*text_only)
          shares = acoustic::MixShares::text_side(*share);
        else
          shares.share = *share;
        for (const std::string& entry : *layer_shares)
          shares.layers.push_back(parse_layer_share(entry));
        acoustic::interpolate_toward_base(average, base_model, shares);
      }
    } catch (const std::exception& e) {
      std::cerr << "tts train acoustic-average: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    acoustic::save_acoustic_model(*out, *average.weights, average.features, *average.symbols);
    std::cerr << "averaged " << dirs.size() << " acoustic model(s)";
    if (!base->empty()) std::cerr << ", mixed with " << *share << " of " << *base;
    std::cerr << ", into " << *out << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
