#include "tts/train/acoustic_trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "acoustic_task.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/training_pass.h"
#include "tts/acoustic/weights.h"
#include "tts/frontend/symbol_table.h"
#include "tts/train/acoustic_checkpoint.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/acoustic_evaluation.h"
#include "tts/train/acoustic_statistics.h"
#include "tts/train/checkpoint_files.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/training_loop.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

// The (offset, size) of every tensor that `trained_layers` leaves out (none when it is empty);
// a layer that names no tensor is refused, since a typo would otherwise train nothing.
std::vector<FrozenTensor> frozen_tensors(const kernels::ParameterSet& parameters,
                                         const std::vector<std::string>& trained_layers,
                                         std::ostream& log) {
  std::vector<FrozenTensor> frozen;
  if (trained_layers.empty()) return frozen;
  for (const std::string& layer : trained_layers)
    if (!acoustic::layer_names_a_tensor(layer, parameters))
      throw std::invalid_argument("--train-layers: \"" + layer +
                                  "\" names no tensor of the model (names: "
                                  "acoustic/weights.h, e.g. pitch, decoder.input)");
  std::size_t trained = 0;
  for (const auto& entry : parameters.entries()) {
    const bool trains = std::any_of(
        trained_layers.begin(), trained_layers.end(),
        [&](const std::string& layer) { return acoustic::layer_contains(layer, entry.name); });
    if (trains)
      trained += entry.size();
    else
      frozen.emplace_back(entry.offset, entry.size());
  }
  log << "training " << trained << " of " << parameters.size()
      << " parameters (--train-layers); the others keep their starting weights\n";
  return frozen;
}

// Copies every tensor of `from` into the tensor of the same name in `to` (same shape); tensors of
// `to` that `from` lacks are left as they are.
void copy_shared_parameters(const kernels::ParameterSet& from, kernels::ParameterSet& to) {
  for (std::size_t i = 0; i < from.entries().size(); ++i) {
    const auto& e = from.entries()[i];
    const int j = to.index_of(e.name);
    const auto& t = to.entries().at(static_cast<std::size_t>(j));
    if (t.rows != e.rows || t.cols != e.cols)
      throw std::runtime_error("tensor " + e.name + " has another shape in the starting model");
    to.matrix(j) = from.matrix(static_cast<int>(i));
  }
}

// The --seed of the run a checkpoint continues. Checkpoints from before "run_seed" record only
// the batch seed, which alignment restarts replace by the winning candidate's: if that is one of
// `asked`'s candidates (at most 64, the CLI's limit on --alignment-restarts), the run is `asked`'s.
uint64_t recorded_run_seed(const nlohmann::json& checkpoint, uint64_t asked) {
  if (checkpoint.contains("run_seed")) return checkpoint.at("run_seed").get<uint64_t>();
  const uint64_t seed = checkpoint.at("seed").get<uint64_t>();
  for (int k = 0; k < 64; ++k)
    if (restart_seed(asked, k) == seed) return asked;
  return seed;
}

}  // namespace

AcousticTrainingSummary train_acoustic(const AcousticTrainingOptions& options,
                                       std::ostream& rank_log) {
  AcousticTrainingOptions o = options;
  Communicator& ranks = o.communicator ? *o.communicator : this_process_alone();
  const bool writer = ranks.rank() == 0;  // rank 0 alone writes files and the log
  std::ostream discard(nullptr);
  std::ostream& log = writer ? rank_log : discard;
  const BatchLayout layout{o.batch_utterances, o.accumulate, ranks.size(), ranks.rank()};
  check_batch_layout(layout);
  // An unusable --device or --precision fails before the corpus is loaded.
  kernels::check_device_choice(o.device);
  // A resume learns before any other work whether there is a checkpoint, whether it is this
  // run's, and whether it leaves anything to train.
  bool already_trained = false;
  if (o.resume) {
    std::vector<std::string> warnings;
    const nlohmann::json header = read_acoustic_checkpoint_header(o.out_dir, &warnings);
    for (const auto& w : warnings) log << "warning: " << w << "\n";
    const ResumePoint point = check_resume(o.out_dir, header, recorded_run_seed(header, o.seed),
                                           o.seed, o.steps, layout, ranks, log);
    already_trained = point.already_trained;
    if (already_trained && o.alignments_file.empty()) {
      AcousticTrainingSummary done;
      done.first_step = done.last_step = point.step;
      done.already_trained = true;
      return done;
    }
    // Otherwise a finished run still loads the corpus and the checkpoint, to write the model's
    // alignments.
  }
  // The starting model, read once: its architecture may be needed before the corpus is loaded.
  std::optional<acoustic::AcousticModelFiles> start;
  if (!o.init_from.empty()) start = acoustic::load_acoustic_files(o.init_from);
  if (start && o.architecture_from_init) {
    o.config = start->weights->config();
    o.features = start->features;
    if (!o.config.pitch_energy) {
      // A model from before the variance adaptor gets one, as this run's config asks (by default).
      o.config.pitch_energy = options.config.pitch_energy;
      o.config.variance_channels = options.config.variance_channels;
      o.config.variance_kernel = options.config.variance_kernel;
      o.config.variance_bins = options.config.variance_bins;
    }
  }
  const frontend::SymbolTable& symbols = frontend::SymbolTable::default_table();
  auto language_of = [&](const fs::path& dir) {
    const auto it = o.folder_languages.find(dir);
    return it == o.folder_languages.end() ? o.language : it->second;
  };
  AcousticCorpus corpus =
      load_acoustic_corpus(o.data_dir, o.features, language_of(o.data_dir), o.loader_threads);
  for (const auto& w : corpus.warnings) log << "warning: " << w << "\n";
  log << "corpus: " << corpus.training.size() << " training and " << corpus.validation.size()
      << " validation utterances from " << o.data_dir.string() << " (" << language_of(o.data_dir)
      << ")\n";
  for (const fs::path& dir : o.more_data_dirs) {
    AcousticCorpus more = load_acoustic_corpus(dir, o.features, language_of(dir), o.loader_threads);
    for (const auto& w : more.warnings) log << "warning: " << w << "\n";
    log << "speaker 0: " << more.training.size() << " training and " << more.validation.size()
        << " validation utterances more from " << dir.string() << " (" << language_of(dir) << ")\n";
    std::move(more.training.begin(), more.training.end(), std::back_inserter(corpus.training));
    std::move(more.validation.begin(), more.validation.end(),
              std::back_inserter(corpus.validation));
  }
  const int speakers = 1 + static_cast<int>(o.other_speaker_dirs.size());
  // The other speakers' held-out files are not validated on (the run is judged on the voice it
  // exports) but their alignments are written with the rest.
  std::vector<AcousticUtterance> other_validation;
  for (int s = 1; s < speakers; ++s) {
    const fs::path& dir = o.other_speaker_dirs[static_cast<std::size_t>(s - 1)];
    AcousticCorpus other =
        load_acoustic_corpus(dir, o.features, language_of(dir), o.loader_threads);
    for (const auto& w : other.warnings) log << "warning: " << w << "\n";
    log << "speaker " << s << ": " << other.training.size() << " training utterances from "
        << dir.string() << " (" << language_of(dir) << ")\n";
    for (auto* set : {&other.training, &other.validation})
      for (AcousticUtterance& u : *set) u.speaker = s;
    std::move(other.training.begin(), other.training.end(), std::back_inserter(corpus.training));
    std::move(other.validation.begin(), other.validation.end(),
              std::back_inserter(other_validation));
  }

  AcousticTrainingState state;
  state.config = o.config;
  // A model of several speakers fine-tuned on fewer keeps all its speaker vectors: --data trains
  // speaker 0's, the --speaker-data folders the next ones', the rest stay as they were. That is
  // how a voice is adapted from a base trained on many speakers.
  const int start_speakers = start ? start->weights->config().speakers : 1;
  state.config.speakers = std::max(speakers, start_speakers);
  if (start_speakers > speakers)
    log << "the model keeps the " << start_speakers << " speakers of " << o.init_from.string()
        << "; this run trains speaker"
        << (speakers > 1 ? "s 0.." + std::to_string(speakers - 1) : " 0") << "\n";
  state.config.speaker = 0;
  state.config.symbols = static_cast<int>(symbols.size());
  state.config.n_mels = o.features.n_mels;
  set_corpus_statistics(corpus.training,
                        start && !o.trained_layers.empty() ? &start->weights->config() : nullptr,
                        state.config, log);
  // The corpus and the statistics measured on it stand for it: every rank must train the same.
  check_same_on_every_rank(
      ranks, "the run's settings and corpus",
      nlohmann::json{{"acoustic", state.config},
                     {"features", o.features},
                     {"seed", o.seed},
                     {"steps", o.steps},
                     {"batch", batch_layout_json(layout)},
                     {"utterances", corpus.training.size()},
                     {"loss", {o.loss.l1_mel, o.loss.dropout, o.loss.pause_penalty}},
                     {"flat_start_steps", o.uniform_alignment_steps},
                     {"alignment_restarts", o.alignment_restarts}}
          .dump());
  // A calibration belongs to the predictor it was measured on; training changes the predictor
  // (`tts train calibrate-pitch` measures the finished model again).
  state.config.pitch_spread = 1.0f;
  state.features = o.features;
  state.seed = state.run_seed = o.seed;
  state.batch = layout;
  acoustic::AcousticWeights model(state.config);
  state.weights = state.ema = model.parameters();
  state.first_moment = state.second_moment = model.parameters().zeros_like();
  const bool fresh_start = !o.resume;
  if (!fresh_start) {
    load_acoustic_checkpoint(o.out_dir, state);  // checked (and warned about) above
    log << "resumed from " << (o.out_dir / "checkpoint.json").string() << " at step " << state.step
        << "\n";
  } else {
    check_fresh_start(o.out_dir);
    model.initialise(o.seed);
    state.weights = state.ema = model.parameters();
    if (start) {
      // A model without the variance adaptor (format_version 2) may start one with it: its
      // tensors are taken over, the adaptor's keep their initialisation (embeddings at zero).
      const bool adds_variance =
          state.config.pitch_energy && !start->weights->config().pitch_energy;
      // So may a model of one speaker start one of several (their vectors start at zero).
      const bool adds_speakers = speakers > 1 && start->weights->config().speakers == 1;
      if (!state.config.pitch_energy && start->weights->config().pitch_energy)
        throw std::runtime_error(o.init_from.string() +
                                 ": it has pitch and energy predictors, this run's config not");
      const nlohmann::json theirs = architecture_json(start->weights->config()),
                           ours = architecture_json(state.config, adds_variance, adds_speakers);
      if (theirs != ours)
        throw std::runtime_error(o.init_from.string() + ": its acoustic config " + theirs.dump() +
                                 " differs from this run's " + ours.dump());
      if (nlohmann::json(start->features) != nlohmann::json(o.features))
        throw std::runtime_error(o.init_from.string() + ": its features differ from this run's");
      if (adds_variance || adds_speakers) {
        copy_shared_parameters(start->weights->parameters(), state.weights);
        state.ema = state.weights;
        log << "starting from the weights of " << o.init_from.string() << " ("
            << (adds_variance ? "a model without pitch and energy: the variance adaptor starts "
                                "fresh"
                              : "a model of one speaker: the speaker embedding starts at zero")
            << ")\n";
      } else {
        state.weights = state.ema = start->weights->parameters();
        log << "starting from the weights of " << o.init_from.string() << "\n";
      }
    }
  }
  state.loss_scale = start_loss_scaling(o.loss_scaling, o.device.precision,
                                        fresh_start ? std::nullopt : state.loss_scale, log);
  log << "model: " << state.config.encoder_blocks << " encoder and " << state.config.decoder_blocks
      << " decoder blocks, " << state.config.channels << "/" << state.config.decoder_channels
      << " channels, " << state.weights.size() << " parameters\n";

  std::vector<FrozenTensor> frozen = frozen_tensors(state.weights, o.trained_layers, log);
  acoustic::AcousticLossSettings settings = o.loss;
  settings.symbol_timings = symbols.timings();  // stress and length marks take no frames
  settings.alignment_channel_weights = alignment_channel_weights(corpus.training, state.config);
  const std::unique_ptr<acoustic::AcousticTrainingPass> pass =
      acoustic::make_acoustic_training_pass(model, settings, o.device);
  log << "training pass: " << pass->describe() << "\n";
  if (layout.micro_batches() > 1)
    log << "batch: " << layout.describe() << " utterances per step, " << ranks.describe() << "\n";
  acoustic::AcousticLossSettings held_out_settings = settings;  // measured as synthesis runs
  held_out_settings.dropout = 0.0f;
  if (state.config.pitch_energy)
    log << "variance statistics: log F0 mean " << state.config.pitch_mean << " ("
        << std::exp(state.config.pitch_mean) << " Hz) std " << state.config.pitch_std
        << ", log energy mean " << state.config.energy_mean << " std " << state.config.energy_std
        << "\n";
  AcousticTask task({o, layout, ranks, corpus.training, corpus.validation, speakers, model, *pass,
                     settings, held_out_settings, state, std::move(frozen), symbols});
  const TrainingSchedule schedule = schedule_of(o, !corpus.validation.empty());
  const TrainingTensors tensors = tensors_of(state);
  AcousticTrainingSummary summary;
  summary.first_step = state.step;
  summary.already_trained = already_trained;

  // Random restarts (EM's answer to local optima): alignment search from a flat start sometimes
  // settles with a stop's closure kept by the vowel before it, and never leaves. Candidates from
  // other seeds train restart_steps steps each; the one whose prior fits best continues.
  const int64_t restart_steps = std::min(o.restart_steps, o.steps - 1);
  if (fresh_start && !start && o.alignment_restarts > 1 && restart_steps > 0) {
    const AcousticTrainingState initial = state;
    std::optional<AcousticTrainingState> best;
    double best_fit = 0.0;
    kernels::ParameterSet gradients = state.weights.zeros_like();
    for (int k = 0; k < o.alignment_restarts; ++k) {
      state = initial;
      state.seed = restart_seed(o.seed, k);
      model.initialise(state.seed);
      state.weights = state.ema = model.parameters();
      while (state.step < restart_steps)
        take_training_step(task, tensors, gradients, ranks, schedule, log);
      model.parameters() = state.weights;
      const double fit = alignment_fit(model, held_out_settings, corpus.training);
      log << "alignment restart " << k + 1 << "/" << o.alignment_restarts << " (seed " << state.seed
          << "): prior loss " << fit << " at step " << state.step << std::endl;
      if (!best || fit < best_fit) best_fit = fit, best = std::move(state);
    }
    state = std::move(*best);
    log << "continuing the restart with seed " << state.seed << "\n";
  } else if (fresh_start && start && o.alignment_restarts > 1) {
    log << "alignment restarts: not used, the run starts from " << o.init_from.string()
        << "'s weights, whose aligner has already settled\n";
  }

  const LoopSummary loop = run_training_loop(task, tensors, ranks, schedule, log);
  summary.last_step = loop.last_step;
  if (!loop.last_losses.empty()) summary.last_losses = AcousticTask::losses_of(loop.last_losses);
  summary.last_validation_mel = loop.last_validation;
  summary.frames_per_second = loop.work_per_second;
  if (writer && !o.alignments_file.empty()) {
    acoustic::AcousticWeights ema_model(state.config);
    ema_model.parameters() = state.ema;
    std::move(other_validation.begin(), other_validation.end(),
              std::back_inserter(corpus.validation));
    write_alignments(ema_model, held_out_settings, corpus, o.alignments_file, log);
    log << "alignments written to " << o.alignments_file.string() << "\n";
  }
  return summary;
}

}  // namespace tts::train
