// `tts train calibrate-pitch`: measures how much a finished acoustic model's pitch predictions
// shrink toward the mean on its training recordings and stores the factor that undoes it
// (pitch_spread in acoustic.json; synthesis stretches each utterance's predicted pitch by it).
#include <iostream>
#include <nlohmann/json.hpp>

#include "train_commands.h"
#include "tts/train/pitch_calibration.h"

namespace tts::cli {

void register_train_calibrate_pitch(CLI::App& train, int& exit_code) {
  auto o = std::make_shared<train::PitchCalibrationOptions>();
  auto model = std::make_shared<std::string>(), data = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);
  CLI::App* cmd = train.add_subcommand(
      "calibrate-pitch",
      "Restore the pitch spread an acoustic model's predictor lost (writes pitch_spread)");
  cmd->footer(
      "Aligns every training recording of --data as training does, compares each utterance's\n"
      "predicted token pitch with the recording's around their means, and writes the ratio of the\n"
      "two spreads into MODEL/acoustic.json as pitch_spread (one JSON line on stdout). Run it on\n"
      "the model you ship (after acoustic-average), with the corpus it was fine-tuned on.");
  add_model_and_corpus_options(*cmd, *model, *data, o->language, o->loader_threads);
  cmd->add_flag("--dry-run", *dry_run, "Measure only; leave acoustic.json as it is");
  cmd->add_option("--extra-stretch", o->extra_stretch,
                  "Multiply the measured factor by this (the rendered contour is flatter than "
                  "the predicted one; docs/acoustic-model.md)")
      ->check(CLI::Range(0.25, 4.0));
  cmd->callback([=, &exit_code] {
    o->model_dir = *model;
    o->data_dir = *data;
    o->write = !*dry_run;
    train::PitchCalibration c;
    try {
      c = train::calibrate_pitch_spread(*o, std::cerr);
    } catch (const std::exception& e) {
      std::cerr << "tts train calibrate-pitch: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    std::cout << nlohmann::json{{"model", o->model_dir.string()},
                                {"utterances", c.utterances},
                                {"tokens", c.tokens},
                                {"target_spread", c.target_spread},
                                {"predicted_spread", c.predicted_spread},
                                {"previous_pitch_spread", c.previous_spread},
                                {"extra_stretch", o->extra_stretch},
                                {"pitch_spread", c.pitch_spread},
                                {"written", o->write}}
                     .dump()
              << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
