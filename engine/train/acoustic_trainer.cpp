#include "tts/train/acoustic_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tts/frontend/acoustic/alignment_targets.h"
#include "tts/frontend/acoustic/model_files.h"
#include "tts/frontend/acoustic/training_pass.h"
#include "tts/frontend/acoustic/weights.h"
#include "tts/frontend/symbol_table.h"
#include "tts/kernels/alignment.h"
#include "tts/kernels/atomic_file.h"
#include "tts/train/acoustic_checkpoint.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/checkpoint_files.h"
#include "tts/train/fault_injection.h"
#include "tts/train/gradient_reduction.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/optimizer_step.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

// The (offset, size) of every tensor that `trained_layers` leaves out (none when it is empty);
// a layer that names no tensor is refused, since a typo would otherwise train nothing.
std::vector<std::pair<std::size_t, std::size_t>> frozen_tensors(
    const kernels::ParameterSet& parameters, const std::vector<std::string>& trained_layers,
    std::ostream& log) {
  std::vector<std::pair<std::size_t, std::size_t>> frozen;
  if (trained_layers.empty()) return frozen;
  for (const std::string& layer : trained_layers)
    if (!frontend::layer_names_a_tensor(layer, parameters))
      throw std::invalid_argument("--train-layers: \"" + layer +
                                  "\" names no tensor of the model (names: "
                                  "frontend/acoustic/weights.h, e.g. pitch, decoder.input)");
  std::size_t trained = 0;
  for (const auto& entry : parameters.entries()) {
    const bool trains = std::any_of(
        trained_layers.begin(), trained_layers.end(),
        [&](const std::string& layer) { return frontend::layer_contains(layer, entry.name); });
    if (trains)
      trained += entry.size();
    else
      frozen.emplace_back(entry.offset, entry.size());
  }
  log << "training " << trained << " of " << parameters.size()
      << " parameters (--train-layers); the others keep their starting weights\n";
  return frozen;
}

using Clock = std::chrono::steady_clock;

// Global mean and standard deviation of the training frames, for normalising the targets.
void measure_mel_statistics(const std::vector<AcousticUtterance>& utterances,
                            frontend::AcousticConfig& config) {
  double sum = 0.0, sum2 = 0.0, count = 0.0;
  for (const auto& u : utterances) {
    sum += u.mel.cast<double>().sum();
    sum2 += u.mel.cast<double>().squaredNorm();
    count += static_cast<double>(u.mel.size());
  }
  const double mean = sum / count;
  config.mel_mean = static_cast<float>(mean);
  config.mel_std = static_cast<float>(std::sqrt(std::max(1e-6, sum2 / count - mean * mean)));
}

// The variance adaptor's corpus statistics: log F0 over the voiced frames, log energy over all.
void measure_variance_statistics(const std::vector<AcousticUtterance>& utterances,
                                 frontend::AcousticConfig& config) {
  double pitch_sum = 0.0, pitch_sum2 = 0.0, voiced = 0.0;
  double energy_sum = 0.0, energy_sum2 = 0.0, frames = 0.0;
  for (const auto& u : utterances) {
    for (float f0 : u.f0_hz)
      if (f0 > 0.0f) {
        const double v = std::log(static_cast<double>(f0));
        pitch_sum += v, pitch_sum2 += v * v, voiced += 1.0;
      }
    energy_sum += u.log_energy.cast<double>().sum();
    energy_sum2 += u.log_energy.cast<double>().squaredNorm();
    frames += static_cast<double>(u.log_energy.size());
  }
  if (voiced < 1.0)
    throw std::runtime_error(
        "no voiced frame in the training corpus: the pitch tracker found no "
        "speech (is it silence or noise?)");
  const double pitch_mean = pitch_sum / voiced, energy_mean = energy_sum / frames;
  config.pitch_mean = static_cast<float>(pitch_mean);
  config.pitch_std =
      static_cast<float>(std::sqrt(std::max(1e-6, pitch_sum2 / voiced - pitch_mean * pitch_mean)));
  config.energy_mean = static_cast<float>(energy_mean);
  config.energy_std = static_cast<float>(
      std::sqrt(std::max(1e-6, energy_sum2 / frames - energy_mean * energy_mean)));
}

// The statistics the targets are normalised with: measured on the training frames, or, for a run
// that trains only some layers (`kept`, the starting model's config), the starting model's. Its
// frozen layers were fitted to those (the decoder's output to its mel statistics, the pitch
// predictor to its log F0 ones), and a corpus made to teach the trained layers something new
// (pitch-shifted copies of the recordings, scripts/build-pitch-shifted-corpus) has statistics of
// its own. A variance adaptor that the starting model lacks is new: its statistics are measured.
void set_corpus_statistics(const std::vector<AcousticUtterance>& training,
                           const frontend::AcousticConfig* kept, frontend::AcousticConfig& config,
                           std::ostream& log) {
  if (kept) {
    config.mel_mean = kept->mel_mean;
    config.mel_std = kept->mel_std;
    log << "corpus statistics: the starting model's (--train-layers trains only some layers)\n";
  } else {
    measure_mel_statistics(training, config);
  }
  if (!config.pitch_energy) return;
  if (kept && kept->pitch_energy) {
    config.pitch_mean = kept->pitch_mean;
    config.pitch_std = kept->pitch_std;
    config.energy_mean = kept->energy_mean;
    config.energy_std = kept->energy_std;
  } else {
    measure_variance_statistics(training, config);
  }
}

// The losses per frame over the first `count` utterances (all of them by default), each aligned
// by MAS, in batches of 8.
frontend::AcousticLosses mean_losses(const frontend::AcousticWeights& weights,
                                     const frontend::AcousticLossSettings& settings,
                                     const std::vector<AcousticUtterance>& utterances,
                                     std::size_t count = SIZE_MAX) {
  count = std::min(count, utterances.size());
  frontend::AcousticPass pass(weights, settings);
  frontend::AcousticLosses sum;
  double frames = 0.0;
  for (std::size_t i = 0; i < count; i += 8) {
    const frontend::AcousticBatch batch =
        pack_utterances(utterances, i, std::min<std::size_t>(8, count - i));
    const double n = static_cast<double>(batch.mel.cols());
    const frontend::AcousticLosses losses = pass.forward(batch);
    sum.mel += losses.mel * n;
    sum.prior += losses.prior * n;
    frames += n;
  }
  frames = std::max(1.0, frames);
  sum.mel /= frames;
  sum.prior /= frames;
  return sum;
}

// Mean mel loss in log-mel units over the held-out utterances, aligned by MAS.
double validation_mel_loss(const frontend::AcousticWeights& weights,
                           const frontend::AcousticLossSettings& settings,
                           const std::vector<AcousticUtterance>& held) {
  return mean_losses(weights, settings, held).mel * weights.config().mel_std;
}

// How well the aligner's prior explains the first (at most 256) training utterances under their
// searched alignments: the mean prior loss per frame. The criterion by which alignment restarts
// are compared: a run whose states settled badly from the flat start fits worse (seeds 1-6 of
// scripts/check-aligner: 0.047-0.050 against 0.053 for the one that placed 80% of boundaries).
double alignment_fit(const frontend::AcousticWeights& weights,
                     const frontend::AcousticLossSettings& settings,
                     const std::vector<AcousticUtterance>& training) {
  return mean_losses(weights, settings, training, 256).prior;
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

// The seed of alignment restart k: the run's own seed first, then well-mixed others (splitmix64),
// so that runs with neighbouring seeds do not share candidates.
uint64_t restart_seed(uint64_t seed, int k) {
  if (k == 0) return seed;
  uint64_t z = seed + static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
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

float learning_rate_at(const AcousticTrainingOptions& o, int64_t step) {
  const double warm =
      o.warmup_steps > 0 ? std::min(1.0, static_cast<double>(step) / o.warmup_steps) : 1.0;
  return static_cast<float>(o.adam.learning_rate * warm);
}

void write_alignments(const frontend::AcousticWeights& weights,
                      const frontend::AcousticLossSettings& settings, const AcousticCorpus& corpus,
                      const fs::path& path, std::ostream& log) {
  std::ostringstream text;
  frontend::AcousticPass pass(weights, settings);
  double prior = 0.0, frames = 0.0;
  for (const auto* set : {&corpus.training, &corpus.validation}) {
    for (std::size_t i = 0; i < set->size(); ++i) {
      const AcousticUtterance& u = (*set)[i];
      const frontend::AcousticBatch batch = pack_utterances(*set, i, 1);
      const double n = static_cast<double>(batch.mel.cols());
      prior += pass.forward(batch).prior * n;
      frames += n;
      const std::vector<int>& durations = pass.durations();
      text << u.id << "\t";
      for (std::size_t k = 0; k < u.ids.size(); ++k) text << (k ? " " : "") << u.ids[k];
      text << "\t";
      for (std::size_t k = 0; k < durations.size(); ++k) text << (k ? " " : "") << durations[k];
      text << "\n";
    }
  }
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  kernels::write_file_atomically(path, text.str());
  log << "alignment fit: prior loss " << prior / std::max(1.0, frames) << " over " << frames
      << " frames\n";
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
    check_resume_seed(o.out_dir, recorded_run_seed(header, o.seed), o.seed);
    const int64_t step = header.at("step").get<int64_t>();
    check_same_on_every_rank(ranks, "the checkpoint's step", std::to_string(step));
    if (step >= o.steps) {
      log << already_trained_message(o.out_dir, step, o.steps) << "\n";
      already_trained = true;
      if (o.alignments_file.empty()) {
        AcousticTrainingSummary done;
        done.first_step = done.last_step = step;
        done.already_trained = true;
        return done;
      }
      // Still loads the corpus and the checkpoint, to write the finished model's alignments.
    }
    // Only a run with steps left draws batches, so only it must keep the global batch.
    if (!already_trained) check_resume_batch(o.out_dir, header, layout);
  }
  // The starting model, read once: its architecture may be needed before the corpus is loaded.
  std::optional<frontend::AcousticModelFiles> start;
  if (!o.init_from.empty()) start = frontend::load_acoustic_files(o.init_from);
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
  AcousticCorpus corpus =
      load_acoustic_corpus(o.data_dir, o.features, o.language, o.loader_threads);
  for (const auto& w : corpus.warnings) log << "warning: " << w << "\n";
  log << "corpus: " << corpus.training.size() << " training and " << corpus.validation.size()
      << " validation utterances from " << o.data_dir.string() << "\n";
  const int speakers = 1 + static_cast<int>(o.other_speaker_dirs.size());
  // The other speakers' held-out files are not validated on (the run is judged on the voice it
  // exports) but their alignments are written with the rest.
  std::vector<AcousticUtterance> other_validation;
  for (int s = 1; s < speakers; ++s) {
    const fs::path& dir = o.other_speaker_dirs[static_cast<std::size_t>(s - 1)];
    AcousticCorpus other = load_acoustic_corpus(dir, o.features, o.language, o.loader_threads);
    for (const auto& w : other.warnings) log << "warning: " << w << "\n";
    log << "speaker " << s << ": " << other.training.size() << " training utterances from "
        << dir.string() << "\n";
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
  frontend::AcousticWeights model(state.config);
  state.weights = state.ema = model.parameters();
  state.first_moment = state.second_moment = model.parameters().zeros_like();
  const bool fresh_start = !o.resume;
  if (!fresh_start) {
    load_acoustic_checkpoint(o.out_dir, state);  // checked (and warned about) above
    log << "resumed from " << (o.out_dir / "checkpoint.json").string() << " at step " << state.step
        << "\n";
  } else {
    if (has_checkpoint(o.out_dir))
      throw std::runtime_error(o.out_dir.string() +
                               " already holds a checkpoint: pass --resume or choose a new --out");
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

  frontend::AcousticWeights ema_model(state.config);
  kernels::ParameterSet grads = state.weights.zeros_like();
  const std::vector<std::pair<std::size_t, std::size_t>> frozen =
      frozen_tensors(grads, o.trained_layers, log);
  frontend::AcousticLossSettings settings = o.loss;
  settings.symbol_timings = symbols.timings();  // stress and length marks take no frames
  settings.alignment_channel_weights = alignment_channel_weights(corpus.training, state.config);
  const std::unique_ptr<frontend::AcousticTrainingPass> pass =
      frontend::make_acoustic_training_pass(model, settings, o.device);
  log << "training pass: " << pass->describe() << "\n";
  if (layout.micro_batches() > 1)
    log << "batch: " << layout.describe() << " utterances per step, " << ranks.describe() << "\n";
  frontend::AcousticLossSettings held_out_settings = settings;  // measured as synthesis runs
  held_out_settings.dropout = 0.0f;
  if (state.config.pitch_energy)
    log << "variance statistics: log F0 mean " << state.config.pitch_mean << " ("
        << std::exp(state.config.pitch_mean) << " Hz) std " << state.config.pitch_std
        << ", log energy mean " << state.config.energy_mean << " std " << state.config.energy_std
        << "\n";
  AcousticTrainingSummary summary;
  summary.first_step = summary.last_step = state.step;
  summary.already_trained = already_trained;
  const auto started = Clock::now();
  double frames_seen = 0.0;
  auto fail = [&](const std::string& what) {
    throw std::runtime_error(what + " at step " + std::to_string(state.step + 1) +
                             "; stopping with the last checkpoint left intact");
  };
  // One optimiser step on batch number state.step of the stream of state.seed: this rank's
  // micro-batches of it, one after the other, their gradients summed over the ranks.
  const bool has_variance = state.config.pitch_energy;
  auto train_step = [&]() -> frontend::AcousticLosses {
    inject_rank_failure(ranks.rank(), state.step + 1);
    model.parameters() = state.weights;
    const bool flat_start = state.step < o.uniform_alignment_steps;
    std::vector<frontend::AcousticBatch> micro;
    std::vector<std::vector<int>> durations(static_cast<std::size_t>(layout.accumulate));
    for (int k = 0; k < layout.accumulate; ++k) {
      micro.push_back(make_speaker_balanced_batch_slice(corpus.training, speakers, layout.global(),
                                                        state.seed, state.step,
                                                        layout.first_item(k), layout.micro));
      if (flat_start)  // empty: searched
        durations[static_cast<std::size_t>(k)] =
            frontend::flat_start_durations(micro.back(), settings);
    }
    // A step of several micro-batches normalises each one's losses by the whole batch's counts.
    // The pitch and energy losses are means over the tokens that have frames, which alignment
    // search decides, so then every micro-batch is aligned first (the prior reads the embedding
    // alone, so this is the search forward() makes).
    frontend::LossNormalisers normalisers;  // 0: the batch's own, when it is the whole step
    double step_frames = 0.0;
    if (layout.micro_batches() > 1) {
      double counts[3] = {0.0, 0.0, 0.0};
      for (int k = 0; k < layout.accumulate; ++k) {
        const frontend::AcousticBatch& b = micro[static_cast<std::size_t>(k)];
        counts[0] += static_cast<double>(b.mel.cols());
        counts[1] += static_cast<double>(b.ids.size());
        if (!has_variance) continue;
        const std::vector<int> d =
            flat_start ? durations[static_cast<std::size_t>(k)] : pass->align(b);
        counts[2] +=
            static_cast<double>(std::count_if(d.begin(), d.end(), [](int n) { return n > 0; }));
      }
      ranks.sum(counts, 3);
      normalisers = {counts[0], counts[1], counts[2]};
      step_frames = counts[0];
    } else {
      step_frames = static_cast<double>(micro.front().mel.cols());
    }
    grads.set_zero();
    const float loss_scale = state.loss_scale ? state.loss_scale->scale : 1.0f;
    frontend::AcousticLosses losses;
    for (int k = 0; k < layout.accumulate; ++k) {
      // A dropout seed of its own for every (run seed, step, micro-batch), so a resumed run draws
      // the same masks; the first micro-batch's is the whole batch's of a run without them.
      const uint64_t dropout_seed =
          restart_seed((state.seed << 32) ^ static_cast<uint64_t>(state.step),
                       layout.rank * layout.accumulate + k);
      const frontend::AcousticLosses l =
          pass->forward(micro[static_cast<std::size_t>(k)], durations[static_cast<std::size_t>(k)],
                        dropout_seed, normalisers);
      pass->backward(grads, loss_scale);  // adds
      losses.mel += l.mel, losses.prior += l.prior, losses.duration += l.duration;
      losses.pitch += l.pitch, losses.energy += l.energy, losses.total += l.total;
    }
    inject_gradient_overflow(ranks.rank(), state.step + 1, grads);
    double values[6] = {losses.mel,   losses.prior,  losses.duration,
                        losses.pitch, losses.energy, losses.total};
    reduce_gradients(ranks, grads, values, 6, 1.0);  // the losses are already shares of the mean
    losses = {values[0], values[1], values[2], values[3], values[4], values[5]};
    // A frozen tensor's gradient is zero, so Adam's moments for it stay zero and so does its step.
    for (const auto& [offset, size] : frozen) std::fill_n(grads.data() + offset, size, 0.0f);
    if (!std::isfinite(losses.total))
      fail("loss is not finite (" + std::to_string(losses.total) + ")");
    OptimizerStepSettings step_settings{o.adam, o.clip_norm, o.ema_decay};
    step_settings.adam.learning_rate = learning_rate_at(o, state.step + 1);
    take_optimizer_step(
        {state.weights, state.ema, state.first_moment, state.second_moment, state.step}, grads,
        step_settings, o.loss_scaling, state.loss_scale, log);
    // Adam leaves a frozen tensor's weights exactly as they were; the EMA's d·w + (1 − d)·w need
    // not round back to w, so it is given them.
    for (const auto& [offset, size] : frozen)
      std::copy_n(state.weights.data() + offset, size, state.ema.data() + offset);
    frames_seen += step_frames;
    return losses;
  };

  // Random restarts (EM's answer to local optima): alignment search from a flat start sometimes
  // settles with a stop's closure kept by the vowel before it, and never leaves. Candidates from
  // other seeds train restart_steps steps each; the one whose prior fits best continues.
  const int64_t restart_steps = std::min(o.restart_steps, o.steps - 1);
  if (fresh_start && !start && o.alignment_restarts > 1 && restart_steps > 0) {
    const AcousticTrainingState initial = state;
    std::optional<AcousticTrainingState> best;
    double best_fit = 0.0;
    for (int k = 0; k < o.alignment_restarts; ++k) {
      state = initial;
      state.seed = restart_seed(o.seed, k);
      model.initialise(state.seed);
      state.weights = state.ema = model.parameters();
      while (state.step < restart_steps) train_step();
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

  while (state.step < o.steps) {
    const frontend::AcousticLosses losses = train_step();
    summary.last_losses = losses;
    summary.last_step = state.step;
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    summary.frames_per_second = frames_seen / std::max(elapsed, 1e-9);

    const bool validate = writer && !corpus.validation.empty() && o.validate_every > 0 &&
                          (state.step % o.validate_every == 0 || state.step == o.steps);
    if (validate) {
      ema_model.parameters() = state.ema;
      summary.last_validation_mel =
          validation_mel_loss(ema_model, held_out_settings, corpus.validation);
    }
    if (state.step % o.log_every == 0 || state.step == o.steps || validate) {
      const double per_step = elapsed / static_cast<double>(summary.last_step - summary.first_step);
      std::ostringstream line;
      line.setf(std::ios::fixed);
      line.precision(4);
      line << "step " << state.step << "/" << o.steps << "  loss " << losses.total << " (mel "
           << losses.mel << " prior " << losses.prior << " dur " << losses.duration;
      if (state.config.pitch_energy)
        line << " pitch " << losses.pitch << " energy " << losses.energy;
      line << ")";
      if (validate) line << "  val mel " << *summary.last_validation_mel;
      line.precision(0);
      line << "  " << summary.frames_per_second << " frames/s  ETA "
           << per_step * static_cast<double>(o.steps - state.step) << " s";
      log << line.str() << std::endl;
    }
    if (writer && (state.step % o.checkpoint_every == 0 || state.step == o.steps)) {
      save_acoustic_checkpoint(o.out_dir, state);
      ema_model.parameters() = state.ema;
      frontend::save_acoustic_model(o.out_dir, ema_model, o.features, symbols);
    }
  }
  if (writer && !o.alignments_file.empty()) {
    ema_model.parameters() = state.ema;
    std::move(other_validation.begin(), other_validation.end(),
              std::back_inserter(corpus.validation));
    write_alignments(ema_model, held_out_settings, corpus, o.alignments_file, log);
    log << "alignments written to " << o.alignments_file.string() << "\n";
  }
  return summary;
}

}  // namespace tts::train
