// `tts train vocoder`: train a WaveNet vocoder from a folder of recordings.
#include <iostream>

#include "device_options.h"
#include "loss_scaling_options.h"
#include "train_commands.h"
#include "tts/train/vocoder_trainer.h"
#include "tts/train/world.h"

namespace tts::cli {

void register_train_vocoder(CLI::App& train, int& exit_code) {
  auto o = std::make_shared<train::VocoderTrainingOptions>();
  auto config_file = std::make_shared<std::string>();
  auto data = std::make_shared<std::string>(), out = std::make_shared<std::string>();
  CLI::App* voc = train.add_subcommand("vocoder", "Train the WaveNet vocoder");
  voc->add_option("--data", *data,
                  "LJSpeech-style folder (metadata.csv + wavs/) or any folder "
                  "of audio files")
      ->required()
      ->check(CLI::ExistingDirectory);
  voc->add_option("--out", *out,
                  "Output folder: checkpoints, vocoder.json/.safetensors, "
                  "validation audio")
      ->required();
  voc->add_option("--config", *config_file,
                  "JSON with \"wavenet\" (model) and optional \"features\" (mel) and \"training\"");
  voc->add_option("--steps", o->steps, "Total optimiser steps")->check(CLI::PositiveNumber);
  voc->add_option("--seed", o->seed, "Seed for initialisation and batch order")
      ->check(seed_validator());
  voc->add_flag("--resume", o->resume, "Continue from OUT/checkpoint.json");
  auto init_from = std::make_shared<std::string>();
  voc->add_option("--init-from", *init_from,
                  "Start from this exported vocoder (a RUN folder or a voice's vocoder/) with a "
                  "fresh optimiser; takes its architecture unless --config is given")
      ->check(CLI::ExistingDirectory);
  voc->add_option("--batch", o->batch_segments, "Crops per batch (per micro-batch and rank)")
      ->check(CLI::Range(1, 1024));
  voc->add_option("--accumulate", o->accumulate,
                  "Micro-batches of --batch crops whose gradients are summed before each step: "
                  "the step's batch is ranks × K × --batch crops, with the memory of one")
      ->check(CLI::Range(1, 4096));
  voc->add_option("--crop", o->batch_length, "Samples per crop")->check(CLI::Range(16, 1 << 20));
  voc->add_option("--lr", o->adam.learning_rate, "Peak learning rate")->check(CLI::PositiveNumber);
  voc->add_option("--checkpoint-every", o->checkpoint_every, "Steps between checkpoints")
      ->check(CLI::PositiveNumber);
  voc->add_option("--validate-every", o->validate_every, "Steps between validations (0 = never)");
  voc->add_option("--log-every", o->log_every, "Steps between progress lines")
      ->check(CLI::PositiveNumber);
  voc->add_option("--threads", o->compute_threads, "Compute threads (GEMM)")
      ->check(CLI::Range(1, 256));
  add_device_choice_options(
      *voc, o->device,
      "Where the forward and backward passes run (the optimiser stays on the CPU)");
  add_loss_scaling_options(*voc, o->loss_scaling);
  voc->add_option("--loader-threads", o->loader_threads,
                  "Threads decoding audio and computing mels")
      ->check(CLI::Range(1, 256));
  auto predicted = std::make_shared<std::string>();
  voc->add_option("--predicted-mels", *predicted,
                  "Folder of ID.npy frames from `tts train aligned-mels` (fine-tuning on what the "
                  "acoustic model makes)")
      ->check(CLI::ExistingDirectory);
  voc->add_option("--predicted-share", o->predicted_share,
                  "Chance that a crop takes the predicted frames (with --predicted-mels)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  voc->callback([=, &exit_code] {
    o->data_dir = *data;
    o->out_dir = *out;
    o->predicted_mels_dir = *predicted;
    o->init_from = *init_from;
    o->architecture_from_init = config_file->empty();
    if (!config_file->empty()) {
      const nlohmann::json j = read_config_file(*config_file);
      try {
        if (j.contains("wavenet")) o->config = j.at("wavenet").get<vocoder::WaveNetConfig>();
        o->features.sample_rate = o->config.sample_rate;
        o->features.hop_length = o->config.hop_length;
        o->features.n_mels = o->config.mel_channels;
        if (j.contains("features")) o->features = j.at("features").get<kernels::MelConfig>();
      } catch (const std::exception& e) {
        throw CLI::ValidationError("--config", *config_file + ": " + e.what());
      }
    }
    // One rank of `mpirun -np N tts train vocoder …`, or this process alone.
    const std::unique_ptr<train::Communicator> ranks = train::world_communicator();
    o->communicator = ranks.get();
    train::VocoderTrainingSummary s;
    run_on_every_rank(*ranks, [&] { s = train::train_vocoder(*o, std::cerr); });
    // A resume already at --steps has said so and succeeds (exit 0): OUT holds a model trained at
    // least that far, left untouched, which is what the command asks for; so rerunning a finished
    // command (as the training scripts do, resuming whenever a checkpoint exists) is no failure.
    if (!s.already_trained && ranks->rank() == 0)
      std::cerr << "trained steps " << s.first_step << ".." << s.last_step << ", final loss "
                << s.last_loss << "; model in " << o->out_dir.string() << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
