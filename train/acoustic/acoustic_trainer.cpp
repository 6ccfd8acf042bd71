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
#include "tts/train/training_loop.h"
#include "tts/train/training_run.h"

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

// The starting model of --init-from, read once: its architecture may be needed before the corpus
// is loaded. With architecture_from_init the run takes its config and features.
std::optional<acoustic::AcousticModelFiles> read_starting_model(
    AcousticTrainingOptions& o, const AcousticTrainingOptions& asked) {
  std::optional<acoustic::AcousticModelFiles> start;
  if (!o.init_from.empty()) start = acoustic::load_acoustic_files(o.init_from);
  if (start && o.architecture_from_init) {
    o.config = start->weights->config();
    o.features = start->features;
    if (!o.config.pitch_energy) {
      // A model from before the variance adaptor gets one, as this run's config asks (by default).
      o.config.pitch_energy = asked.config.pitch_energy;
      o.config.variance_channels = asked.config.variance_channels;
      o.config.variance_kernel = asked.config.variance_kernel;
      o.config.variance_bins = asked.config.variance_bins;
    }
  }
  return start;
}

// What a run trains on: --data (speaker 0) with its --more-data folders, then each
// --speaker-data folder as the next speaker. The other speakers' held-out files are not validated
// on (the run is judged on the voice it exports) but their alignments are written with the rest.
struct TrainingCorpora {
  AcousticCorpus corpus;
  std::vector<AcousticUtterance> other_validation;
  int speakers = 1;
};

TrainingCorpora load_training_corpora(const AcousticTrainingOptions& o, const TrainingRun& run) {
  std::ostream& log = run.log();
  auto language_of = [&](const fs::path& dir) {
    const auto it = o.folder_languages.find(dir);
    return it == o.folder_languages.end() ? o.language : it->second;
  };
  auto load = [&](const fs::path& dir) {
    AcousticCorpus loaded =
        load_acoustic_corpus(dir, o.features, language_of(dir), o.loader_threads);
    run.warn(loaded.warnings);
    return loaded;
  };
  TrainingCorpora c;
  c.corpus = load(o.data_dir);
  log << "corpus: " << c.corpus.training.size() << " training and " << c.corpus.validation.size()
      << " validation utterances from " << o.data_dir.string() << " (" << language_of(o.data_dir)
      << ")\n";
  for (const fs::path& dir : o.more_data_dirs) {
    AcousticCorpus more = load(dir);
    log << "speaker 0: " << more.training.size() << " training and " << more.validation.size()
        << " validation utterances more from " << dir.string() << " (" << language_of(dir) << ")\n";
    std::move(more.training.begin(), more.training.end(), std::back_inserter(c.corpus.training));
    std::move(more.validation.begin(), more.validation.end(),
              std::back_inserter(c.corpus.validation));
  }
  c.speakers = 1 + static_cast<int>(o.other_speaker_dirs.size());
  for (int s = 1; s < c.speakers; ++s) {
    const fs::path& dir = o.other_speaker_dirs[static_cast<std::size_t>(s - 1)];
    AcousticCorpus other = load(dir);
    log << "speaker " << s << ": " << other.training.size() << " training utterances from "
        << dir.string() << " (" << language_of(dir) << ")\n";
    for (auto* set : {&other.training, &other.validation})
      for (AcousticUtterance& u : *set) u.speaker = s;
    std::move(other.training.begin(), other.training.end(), std::back_inserter(c.corpus.training));
    std::move(other.validation.begin(), other.validation.end(),
              std::back_inserter(c.other_validation));
  }
  return c;
}

// The state's config, features, seeds and batch for this run and corpus, checked to be the same
// on every rank.
void configure_state(AcousticTrainingState& state, const AcousticTrainingOptions& o,
                     const TrainingRun& run, const TrainingCorpora& corpora,
                     const acoustic::AcousticModelFiles* start) {
  std::ostream& log = run.log();
  const frontend::SymbolTable& symbols = frontend::SymbolTable::default_table();
  state.config = o.config;
  // A model of several speakers fine-tuned on fewer keeps all its speaker vectors: --data trains
  // speaker 0's, the --speaker-data folders the next ones', the rest stay as they were. That is
  // how a voice is adapted from a base trained on many speakers.
  const int start_speakers = start ? start->weights->config().speakers : 1;
  state.config.speakers = std::max(corpora.speakers, start_speakers);
  if (start_speakers > corpora.speakers)
    log << "the model keeps the " << start_speakers << " speakers of " << o.init_from.string()
        << "; this run trains speaker"
        << (corpora.speakers > 1 ? "s 0.." + std::to_string(corpora.speakers - 1) : " 0") << "\n";
  state.config.speaker = 0;
  state.config.symbols = static_cast<int>(symbols.size());
  state.config.n_mels = o.features.n_mels;
  set_corpus_statistics(corpora.corpus.training,
                        start && !o.trained_layers.empty() ? &start->weights->config() : nullptr,
                        state.config, log);
  // The corpus and the statistics measured on it stand for it: every rank must train the same.
  check_same_on_every_rank(
      run.ranks(), "the run's settings and corpus",
      nlohmann::json{{"acoustic", state.config},
                     {"features", o.features},
                     {"seed", o.seed},
                     {"steps", o.steps},
                     {"batch", batch_layout_json(run.layout())},
                     {"utterances", corpora.corpus.training.size()},
                     {"loss", {o.loss.l1_mel, o.loss.dropout, o.loss.pause_penalty}},
                     {"flat_start_steps", o.uniform_alignment_steps},
                     {"alignment_restarts", o.alignment_restarts}}
          .dump());
  // A calibration belongs to the predictor it was measured on; training changes the predictor
  // (`tts train calibrate-pitch` measures the finished model again).
  state.config.pitch_spread = 1.0f;
  state.features = o.features;
  state.seed = state.run_seed = o.seed;
  state.batch = run.layout();
}

// A fresh start from --init-from's weights. A model without the variance adaptor (format_version
// 2) may start one with it: its tensors are taken over, the adaptor's keep their initialisation
// (embeddings at zero); so may a model of one speaker start one of several (their vectors start
// at zero).
void take_starting_weights(AcousticTrainingState& state, const acoustic::AcousticModelFiles& start,
                           const AcousticTrainingOptions& o, int speakers, std::ostream& log) {
  const acoustic::AcousticConfig& theirs_config = start.weights->config();
  const bool adds_variance = state.config.pitch_energy && !theirs_config.pitch_energy;
  const bool adds_speakers = speakers > 1 && theirs_config.speakers == 1;
  if (!state.config.pitch_energy && theirs_config.pitch_energy)
    throw std::runtime_error(o.init_from.string() +
                             ": it has pitch and energy predictors, this run's config not");
  const nlohmann::json theirs = architecture_json(theirs_config),
                       ours = architecture_json(state.config, adds_variance, adds_speakers);
  if (theirs != ours)
    throw std::runtime_error(o.init_from.string() + ": its acoustic config " + theirs.dump() +
                             " differs from this run's " + ours.dump());
  if (nlohmann::json(start.features) != nlohmann::json(o.features))
    throw std::runtime_error(o.init_from.string() + ": its features differ from this run's");
  if (adds_variance || adds_speakers) {
    copy_shared_parameters(start.weights->parameters(), state.weights);
    state.ema = state.weights;
    log << "starting from the weights of " << o.init_from.string() << " ("
        << (adds_variance ? "a model without pitch and energy: the variance adaptor starts "
                            "fresh"
                          : "a model of one speaker: the speaker embedding starts at zero")
        << ")\n";
  } else {
    state.weights = state.ema = start.weights->parameters();
    log << "starting from the weights of " << o.init_from.string() << "\n";
  }
}

// Random restarts (EM's answer to local optima): alignment search from a flat start sometimes
// settles with a stop's closure kept by the vowel before it, and never leaves. Candidates from
// other seeds train restart_steps steps each; the one whose prior fits best continues.
void run_alignment_restarts(AcousticTrainingState& state, const AcousticTrainingOptions& o,
                            int64_t restart_steps, acoustic::AcousticWeights& model,
                            AcousticTask& task, const acoustic::AcousticLossSettings& held_out,
                            const std::vector<AcousticUtterance>& training,
                            const TrainingSchedule& schedule, const TrainingRun& run) {
  std::ostream& log = run.log();
  const TrainingTensors tensors = tensors_of(state);
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
      take_training_step(task, tensors, gradients, run.ranks(), schedule, log);
    model.parameters() = state.weights;
    const double fit = alignment_fit(model, held_out, training);
    log << "alignment restart " << k + 1 << "/" << o.alignment_restarts << " (seed " << state.seed
        << "): prior loss " << fit << " at step " << state.step << std::endl;
    if (!best || fit < best_fit) best_fit = fit, best = std::move(state);
  }
  state = std::move(*best);
  log << "continuing the restart with seed " << state.seed << "\n";
}

// The corpus folders a run trains on, recorded in its checkpoint and compared on resume (the
// features are compared when the checkpoint is read, once --init-from may have set them).
nlohmann::json corpus_folders(const AcousticTrainingOptions& o) {
  nlohmann::json more = nlohmann::json::array(), others = nlohmann::json::array();
  for (const fs::path& dir : o.more_data_dirs) more.push_back(recorded_folder(dir));
  for (const fs::path& dir : o.other_speaker_dirs) others.push_back(recorded_folder(dir));
  return {{"speaker", recorded_folder(o.data_dir)}, {"more", more}, {"other_speakers", others}};
}

}  // namespace

AcousticTrainingSummary train_acoustic(const AcousticTrainingOptions& options,
                                       std::ostream& rank_log) {
  AcousticTrainingOptions o = options;
  const TrainingRun run(o.communicator, rank_log, o.batch_utterances, o.accumulate);
  std::ostream& log = run.log();
  // An unusable --device or --precision fails before the corpus is loaded.
  kernels::check_device_choice(o.device);
  const RunStart run_start{o.out_dir,
                           o.resume,
                           o.seed,
                           o.steps,
                           o.loss_scaling,
                           o.device.precision,
                           {{"data", corpus_folders(o)}}};
  const auto resumed = check_run_resume(
      run, run_start,
      [](const fs::path& out, std::vector<std::string>* warnings) {
        return read_acoustic_checkpoint_header(out, warnings);
      },
      [&](const nlohmann::json& header) { return recorded_run_seed(header, o.seed); });
  const bool already_trained = resumed && resumed->already_trained;
  // A finished run still loads the corpus and the checkpoint when it writes the model's
  // alignments.
  if (already_trained && o.alignments_file.empty()) {
    AcousticTrainingSummary done;
    done.first_step = done.last_step = resumed->step;
    done.already_trained = true;
    return done;
  }
  const std::optional<acoustic::AcousticModelFiles> start = read_starting_model(o, options);
  const frontend::SymbolTable& symbols = frontend::SymbolTable::default_table();
  TrainingCorpora corpora = load_training_corpora(o, run);
  AcousticCorpus& corpus = corpora.corpus;

  AcousticTrainingState state;
  configure_state(state, o, run, corpora, start ? &*start : nullptr);
  state.data = run_start.inputs.at("data");
  acoustic::AcousticWeights model(state.config);
  start_training_state<AcousticTrainingState>(
      state, model.parameters(), run, run_start,
      [&](AcousticTrainingState& s) { load_acoustic_checkpoint(o.out_dir, s); },
      [&](AcousticTrainingState& s) {
        model.initialise(o.seed);
        s.weights = s.ema = model.parameters();
        if (start) take_starting_weights(s, *start, o, corpora.speakers, log);
      });
  log << "model: " << state.config.encoder_blocks << " encoder and " << state.config.decoder_blocks
      << " decoder blocks, " << state.config.channels << "/" << state.config.decoder_channels
      << " channels, " << state.weights.size() << " parameters\n";

  std::vector<FrozenTensor> frozen = frozen_tensors(state.weights, o.trained_layers, log);
  acoustic::AcousticLossSettings settings = o.loss;
  settings.symbol_timings = symbols.timings();  // stress and length marks take no frames
  settings.alignment_channel_weights = alignment_channel_weights(corpus.training, state.config);
  const std::unique_ptr<acoustic::AcousticTrainingPass> pass =
      acoustic::make_acoustic_training_pass(model, settings, o.device);
  run.log_training_pass(pass->describe(), "utterances");
  acoustic::AcousticLossSettings held_out_settings = settings;  // measured as synthesis runs
  held_out_settings.dropout = 0.0f;
  if (state.config.pitch_energy)
    log << "variance statistics: log F0 mean " << state.config.pitch_mean << " ("
        << std::exp(state.config.pitch_mean) << " Hz) std " << state.config.pitch_std
        << ", log energy mean " << state.config.energy_mean << " std " << state.config.energy_std
        << "\n";
  AcousticTask task({o, run.layout(), run.ranks(), corpus.training, corpus.validation,
                     corpora.speakers, model, *pass, settings, held_out_settings, state,
                     std::move(frozen), symbols});
  const TrainingSchedule schedule = schedule_of(o, !corpus.validation.empty());
  AcousticTrainingSummary summary;
  summary.first_step = state.step;
  summary.already_trained = already_trained;
  const int64_t restart_steps = std::min(o.restart_steps, o.steps - 1);
  if (!o.resume && !start && o.alignment_restarts > 1 && restart_steps > 0) {
    run_alignment_restarts(state, o, restart_steps, model, task, held_out_settings, corpus.training,
                           schedule, run);
  } else if (!o.resume && start && o.alignment_restarts > 1) {
    log << "alignment restarts: not used, the run starts from " << o.init_from.string()
        << "'s weights, whose aligner has already settled\n";
  }

  const LoopSummary loop = run_training_loop(task, tensors_of(state), run.ranks(), schedule, log);
  summary.last_step = loop.last_step;
  if (!loop.last_losses.empty()) summary.last_losses = AcousticTask::losses_of(loop.last_losses);
  summary.last_validation_mel = loop.last_validation;
  summary.frames_per_second = loop.work_per_second;
  if (run.writer() && !o.alignments_file.empty()) {
    acoustic::AcousticWeights ema_model(state.config);
    ema_model.parameters() = state.ema;
    std::move(corpora.other_validation.begin(), corpora.other_validation.end(),
              std::back_inserter(corpus.validation));
    write_alignments(ema_model, held_out_settings, corpus, o.alignments_file, log);
    log << "alignments written to " << o.alignments_file.string() << "\n";
  }
  return summary;
}

}  // namespace tts::train
