// `tts train acoustic`: train the acoustic model (phoneme ids → durations → log-mel frames) from an
// LJSpeech-style folder, with durations learned by monotonic alignment search.
#include <iostream>

#include "device_options.h"
#include "loss_scaling_options.h"
#include "train_commands.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/world.h"

namespace tts::cli {

void register_train_acoustic(CLI::App& train, int& exit_code) {
  auto o = std::make_shared<train::AcousticTrainingOptions>();
  auto config_file = std::make_shared<std::string>();
  auto data = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = train.add_subcommand("acoustic", "Train the acoustic model (text → mel)");
  cmd->add_option("--data", *data,
                  "LJSpeech-style folder: metadata.csv (id|text[|normalised]) and wavs/, as DIR "
                  "or DIR:LANG (its transcripts' espeak-ng language when not --lang); repeatable: "
                  "more recordings of the same speaker, each folder's held-out files validating")
      ->required()
      ->take_all()
      ->check(corpus_folder_validator());
  auto speaker_data = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--speaker-data", *speaker_data,
                  "Another speaker's folder (as --data, DIR or DIR:LANG), trained beside it for "
                  "the speech it teaches; repeatable. The model speaks as --data's speaker; each "
                  "batch gives every speaker an equal share")
      ->check(corpus_folder_validator())
      ->take_all();
  cmd->add_option("--out", *out, "Output folder: checkpoints and acoustic.json/.safetensors")
      ->required();
  cmd->add_option("--config", *config_file,
                  "JSON with \"acoustic\" (model) and optional \"features\" (mel)");
  cmd->add_option("--steps", o->steps, "Total optimiser steps")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "Seed for initialisation and batch order")
      ->check(seed_validator());
  cmd->add_flag("--resume", o->resume, "Continue from OUT/checkpoint.json");
  auto init_from = std::make_shared<std::string>();
  cmd->add_option("--init-from", *init_from,
                  "Start from this trained model's weights (an OUT folder or a voice's "
                  "acoustic/); its architecture and features too, unless --config is given. A "
                  "model of several speakers keeps them all: --data trains speaker 0")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--train-layers", o->trained_layers,
                  "Train only these layers (tensor names or their start: pitch, energy, "
                  "decoder.input, encoder, …); the rest keep the starting weights");
  cmd->add_option("--lang", o->language, "espeak-ng language of the transcripts");
  cmd->add_option("--batch", o->batch_utterances, "Utterances per batch (per micro-batch and rank)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option(
         "--accumulate", o->accumulate,
         "Micro-batches of --batch utterances whose gradients are summed before each "
         "step: the step's batch is ranks × K × --batch utterances, with the memory of one")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--lr", o->adam.learning_rate, "Peak learning rate")->check(CLI::PositiveNumber);
  cmd->add_option("--checkpoint-every", o->checkpoint_every, "Steps between checkpoints")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--validate-every", o->validate_every, "Steps between validations (0 = never)");
  cmd->add_option("--log-every", o->log_every, "Steps between progress lines")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", o->loader_threads, "Loader threads")->check(CLI::Range(1, 256));
  add_device_choice_options(*cmd, o->device,
                            "Where the forward and backward passes run (alignment search and the "
                            "optimiser stay on the CPU)");
  add_loss_scaling_options(*cmd, o->loss_scaling);
  cmd->add_option("--flat-start-steps", o->uniform_alignment_steps,
                  "Steps that spread the frames evenly before alignment search takes over")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--edge-silence", o->loss.edge_silence_threshold,
                  "Flat start: leading and trailing frames quieter than this share of the way "
                  "from an utterance's quietest to its loudest frame go to BOS/EOS (0 = off)")
      ->check(CLI::Range(0.0f, 1.0f))
      ->capture_default_str();
  cmd->add_option("--dropout", o->loss.dropout,
                  "Share of the encoder's, duration predictor's and decoder's activations "
                  "dropped in training (regularises a small corpus)")
      ->check(CLI::Range(0.0f, 0.9f))
      ->capture_default_str();
  cmd->add_option("--pause-penalty", o->loss.pause_penalty,
                  "Alignment: log-likelihood (nats) each frame of a pause at a word boundary "
                  "inside an utterance costs (the edges and clause punctuation are free)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--min-phone-states", o->loss.min_phone_states,
                  "Alignment: how many of a phone's states must each take a frame (0 = all, so "
                  "a phone lasts at least as many frames as it has states; 1 = one frame)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--alignment-restarts", o->alignment_restarts,
                  "Alignment: train this many candidates from different seeds for "
                  "--restart-steps steps and continue the one whose aligner fits best "
                  "(a run from scratch only)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--restart-steps", o->restart_steps,
                  "Alignment: steps each restart candidate trains before they are compared")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto alignments = std::make_shared<std::string>();
  cmd->add_option("--write-alignments", *alignments,
                  "After training, write every utterance's learned durations to this TSV");
  cmd->callback([=, &exit_code] {
    auto folder = [&](const std::string& value) {
      const CorpusFolder f = parse_corpus_folder(value);
      if (!f.language.empty()) o->folder_languages[f.dir] = f.language;
      return f.dir;
    };
    o->data_dir = folder(data->front());
    o->more_data_dirs.clear();
    for (std::size_t i = 1; i < data->size(); ++i) o->more_data_dirs.push_back(folder((*data)[i]));
    o->other_speaker_dirs.clear();
    for (const std::string& value : *speaker_data) o->other_speaker_dirs.push_back(folder(value));
    o->out_dir = *out;
    o->alignments_file = *alignments;
    o->init_from = *init_from;
    o->architecture_from_init = config_file->empty();
    if (!config_file->empty()) {
      const nlohmann::json j = read_config_file(*config_file);
      try {
        if (j.contains("acoustic")) {
          o->config = j.at("acoustic").get<acoustic::AcousticConfig>();
          // A new model, not an old file: an unset alignment_states takes today's default.
          if (!j.at("acoustic").contains("alignment_states"))
            o->config.alignment_states = acoustic::AcousticConfig{}.alignment_states;
        }
        if (j.contains("features")) o->features = j.at("features").get<kernels::MelConfig>();
      } catch (const std::exception& e) {
        throw CLI::ValidationError("--config", *config_file + ": " + e.what());
      }
    }
    // One rank of `mpirun -np N tts train acoustic …`, or this process alone.
    const std::unique_ptr<train::Communicator> ranks = train::world_communicator();
    o->communicator = ranks.get();
    train::AcousticTrainingSummary s;
    run_on_every_rank(*ranks, [&] { s = train::train_acoustic(*o, std::cerr); });
    exit_code = kExitOk;
    // A resume already at --steps has said so and succeeds, as `tts train vocoder` does (exit 0:
    // OUT holds a model trained at least that far, left untouched).
    if (s.already_trained || ranks->rank() != 0) return;
    std::cerr << "trained steps " << s.first_step << ".." << s.last_step << ", final loss "
              << s.last_losses.total;
    if (s.last_validation_mel) std::cerr << ", validation mel loss " << *s.last_validation_mel;
    std::cerr << "; model in " << o->out_dir.string() << "\n";
  });
}

}  // namespace tts::cli
