#include "tts/train/vocoder_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "tts/audio/audio_file.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/train/checkpoint.h"
#include "tts/train/crop_batches.h"
#include "tts/train/fault_injection.h"
#include "tts/train/gradient_reduction.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/optimizer_step.h"
#include "tts/train/predicted_mels.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/sample_codec.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/teacher_forced.h"
#include "tts/vocoder/training_pass.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

using Clock = std::chrono::steady_clock;

std::string format_duration(double seconds) {
  const long s = std::lround(seconds);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  return text;
}

// Mean loss of `weights` over a fixed set of held-out crops (the same crops at every validation).
double validation_loss(const vocoder::WaveNetWeights& weights, const std::vector<Utterance>& held,
                       const CropOptions& crops, uint64_t seed) {
  vocoder::TeacherForcedPass pass(weights);
  double total = 0.0;
  const int batches = 2;
  for (int i = 0; i < batches; ++i)
    total += pass.forward(make_crop_batch(held, crops, seed ^ 0x5eedULL, i));
  return total / batches;
}

// Samples the first seconds of the first held-out clip from its real mel (copy-synthesis).
void write_validation_audio(const vocoder::WaveNetWeights& weights, const Utterance& clip,
                            double seconds, const fs::path& path) {
  const auto& c = weights.config();
  const Eigen::Index frames = std::min<Eigen::Index>(
      clip.mel.cols(), static_cast<Eigen::Index>(seconds * c.sample_rate / c.hop_length) + 1);
  if (frames < 2) return;
  vocoder::WaveNetSampler sampler(weights, {1, 1.0f});
  sampler.start(clip.mel.leftCols(frames));
  std::vector<int32_t> classes(sampler.total_samples());
  sampler.generate(classes.data(), classes.size());
  const std::vector<float> audio = vocoder::decode_samples(c, classes);
  fs::create_directories(path.parent_path());
  audio::write_audio(path, audio.data(), audio.size(), c.sample_rate);
}

}  // namespace

float learning_rate_at(const VocoderTrainingOptions& o, int64_t step) {
  const double warm =
      o.warmup_steps > 0 ? std::min(1.0, static_cast<double>(step) / o.warmup_steps) : 1.0;
  return static_cast<float>(o.adam.learning_rate * warm *
                            std::pow(0.5, static_cast<double>(step) / o.lr_halving_steps));
}

TrainingSummary train_vocoder(const VocoderTrainingOptions& options, std::ostream& rank_log) {
  VocoderTrainingOptions o = options;
  Communicator& ranks = o.communicator ? *o.communicator : this_process_alone();
  const bool writer = ranks.rank() == 0;  // rank 0 alone writes files and the log
  std::ostream discard(nullptr);
  std::ostream& log = writer ? rank_log : discard;
  const BatchLayout layout{o.batch_segments, o.accumulate, ranks.size(), ranks.rank()};
  check_batch_layout(layout);
  // The starting model, read first: it may decide the architecture (also when the run resumes,
  // so that the same command line continues it; its weights are then not used).
  std::optional<vocoder::VocoderModel> start;
  if (!o.init_from.empty()) {
    start = vocoder::load_vocoder(o.init_from);
    if (o.architecture_from_init) {
      o.config = start->weights->config();
      o.features = start->features;
    } else if (vocoder::vocoder_json(start->weights->config(), start->features) !=
               vocoder::vocoder_json(o.config, o.features)) {
      throw std::runtime_error(
          o.init_from.string() + ": its config and features " +
          vocoder::vocoder_json(start->weights->config(), start->features).dump() +
          " differ from this run's " + vocoder::vocoder_json(o.config, o.features).dump());
    }
  }
  vocoder::check_features_match(o.config, o.features);
  // The device first: an unusable --device or --precision fails before the corpus is loaded.
  vocoder::WaveNetWeights model(o.config);
  const std::unique_ptr<vocoder::TrainingPass> pass = vocoder::make_training_pass(model, o.device);
  // A resume learns before any other work whether there is a checkpoint, whether it is this
  // run's, and whether it leaves anything to train.
  if (o.resume) {
    std::vector<std::string> warnings;
    const nlohmann::json header = read_vocoder_checkpoint_header(o.out_dir, &warnings);
    for (const auto& w : warnings) log << "warning: " << w << "\n";
    check_resume_seed(o.out_dir, header.at("seed").get<uint64_t>(), o.seed);
    const int64_t step = header.at("step").get<int64_t>();
    check_same_on_every_rank(ranks, "the checkpoint's step", std::to_string(step));
    if (step >= o.steps) {
      log << already_trained_message(o.out_dir, step, o.steps) << "\n";
      TrainingSummary done;
      done.first_step = done.last_step = step;
      done.already_trained = true;
      return done;
    }
    // Only a run with steps left draws batches, so only it must keep the global batch.
    check_resume_batch(o.out_dir, header, layout);
  }
  check_same_on_every_rank(
      ranks, "the run's settings",
      nlohmann::json{{"model", vocoder::vocoder_json(o.config, o.features)},
                     {"seed", o.seed},
                     {"steps", o.steps},
                     {"batch", batch_layout_json(layout)},
                     {"crop", o.batch_length},
                     {"predicted_share", o.predicted_mels_dir.empty() ? 0.0 : o.predicted_share}}
          .dump());
  CorpusOptions corpus_options;
  corpus_options.features = o.features;
  corpus_options.classes = o.config.classes;
  corpus_options.preemphasis = o.config.preemphasis;
  corpus_options.threads = o.loader_threads;
  Corpus corpus = load_corpus(o.data_dir, corpus_options);
  for (const auto& w : corpus.warnings) log << "warning: " << w << "\n";
  log << "corpus: " << corpus.training.size() << " training and " << corpus.validation.size()
      << " validation files from " << o.data_dir.string() << "\n";
  {
    std::size_t samples = 0;
    for (const auto& u : corpus.training) samples += u.classes.size();
    check_same_on_every_rank(
        ranks, "the training corpus (files, samples)",
        std::to_string(corpus.training.size()) + ", " + std::to_string(samples));
  }
  if (!o.predicted_mels_dir.empty()) {
    std::vector<std::string> warnings;
    const int attached = attach_predicted_mels(corpus.training, o.predicted_mels_dir, warnings);
    for (const auto& w : warnings) log << "warning: " << w << "\n";
    log << "predicted frames for " << attached << " training files from "
        << o.predicted_mels_dir.string() << ", each crop takes them with probability "
        << o.predicted_share << "\n";
  }

  if (writer) {
    // Which clips were held out, so copy-synthesis can be scored on audio the model never saw.
    std::string held_out;
    for (const auto& u : corpus.validation) held_out += u.path.string() + "\n";
    fs::create_directories(o.out_dir);
    kernels::write_file_atomically(o.out_dir / "validation-files.txt", held_out);
  }

  TrainingState state;
  state.config = o.config;
  state.features = o.features;
  state.seed = o.seed;
  state.batch = layout;
  state.weights = model.parameters();
  state.ema = model.parameters();
  state.first_moment = model.parameters().zeros_like();
  state.second_moment = model.parameters().zeros_like();
  if (o.resume) {
    load_checkpoint(o.out_dir, state);  // checked (and warned about) above
    log << "resumed from " << (o.out_dir / "checkpoint.json").string() << " at step " << state.step
        << "\n";
  } else {
    if (has_checkpoint(o.out_dir))
      throw std::runtime_error(o.out_dir.string() +
                               " already holds a checkpoint: pass --resume or choose a new --out");
    model.initialise(o.seed);
    if (start) {
      model.parameters() = start->weights->parameters();
      log << "starting from the weights of " << o.init_from.string() << "\n";
    }
    state.weights = model.parameters();
    state.ema = model.parameters();
  }
  state.loss_scale = start_loss_scaling(o.loss_scaling, o.device.precision,
                                        o.resume ? state.loss_scale : std::nullopt, log);
  log << "model: " << o.config.layers << " layers, R=" << o.config.residual_channels
      << " S=" << o.config.skip_channels << ", receptive field " << o.config.receptive_field()
      << " samples, " << state.weights.size() << " parameters\n";

  kernels::set_gemm_threads(o.compute_threads);
  vocoder::WaveNetWeights ema_model(o.config);  // the averaged weights, for validation and export
  kernels::ParameterSet grads = state.weights.zeros_like();
  log << "training pass: " << pass->describe() << "\n";
  if (layout.micro_batches() > 1)
    log << "batch: " << layout.describe() << " crops per step, " << ranks.describe() << "\n";
  // Validation always hears the recordings' own frames, so its loss compares across runs.
  const CropOptions crops{o.batch_segments, o.batch_length, o.config.hop_length, o.config.classes};
  CropOptions training_crops = crops;
  if (!o.predicted_mels_dir.empty()) training_crops.predicted_share = o.predicted_share;
  // This rank's micro-batches: its slices of each step's batch of layout.global() crops.
  training_crops.segments = layout.global();
  std::vector<CropSlice> slices;
  for (int k = 0; k < layout.accumulate; ++k)
    slices.push_back({layout.first_item(k), layout.micro});
  BatchQueue queue(corpus.training, training_crops, o.seed, state.step, 4, slices);

  TrainingSummary summary;
  summary.first_step = summary.last_step = state.step;
  const auto started = Clock::now();
  auto checkpoint = [&] {
    if (!writer) return;
    save_checkpoint(o.out_dir, state);
    ema_model.parameters() = state.ema;
    vocoder::save_vocoder(o.out_dir, ema_model, o.features);
  };
  const double step_columns = static_cast<double>(layout.global()) * o.batch_length;
  // The device's idle fraction since the last log line (on a GPU): what the host's work between
  // and inside the passes (batches, optimiser, copies) kept it waiting.
  pass->device_busy_seconds();
  auto last_log = Clock::now();
  while (state.step < o.steps) {
    inject_rank_failure(ranks.rank(), state.step + 1);
    model.parameters() = state.weights;
    grads.set_zero();
    double loss = 0.0;
    const float loss_scale = state.loss_scale ? state.loss_scale->scale : 1.0f;
    for (int k = 0; k < layout.accumulate; ++k) {
      const vocoder::Batch batch = queue.next();
      loss += pass->forward(batch);
      pass->backward(grads, loss_scale);  // adds
    }
    inject_gradient_overflow(ranks.rank(), state.step + 1, grads);
    // Each micro-batch's loss and gradient are means over its own crops, all of one size.
    reduce_gradients(ranks, grads, &loss, 1, layout.micro_batches());
    if (!std::isfinite(loss))
      throw std::runtime_error("loss is not finite (" + std::to_string(loss) + ") at step " +
                               std::to_string(state.step + 1) +
                               "; stopping with the last checkpoint left intact");
    OptimizerStepSettings step_settings{o.adam, o.clip_norm, o.ema_decay};
    step_settings.adam.learning_rate = learning_rate_at(o, state.step + 1);
    take_optimizer_step(
        {state.weights, state.ema, state.first_moment, state.second_moment, state.step}, grads,
        step_settings, o.loss_scaling, state.loss_scale, log);
    summary.last_loss = loss;
    summary.last_step = state.step;

    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    summary.samples_per_second =
        static_cast<double>(summary.last_step - summary.first_step) * step_columns / elapsed;
    const bool validate = writer && !corpus.validation.empty() && o.validate_every > 0 &&
                          (state.step % o.validate_every == 0 || state.step == o.steps);
    if (validate) {
      ema_model.parameters() = state.ema;
      summary.last_validation_loss = validation_loss(ema_model, corpus.validation, crops, o.seed);
      if (o.validation_audio_seconds > 0)
        write_validation_audio(
            ema_model, corpus.validation.front(), o.validation_audio_seconds,
            o.out_dir / "validation" / ("step-" + std::to_string(state.step) + ".wav"));
    }
    if (state.step % o.log_every == 0 || state.step == o.steps || validate) {
      const double per_step = elapsed / static_cast<double>(summary.last_step - summary.first_step);
      std::ostringstream line;
      line << "step " << state.step << "/" << o.steps << "  loss " << std::fixed;
      line.precision(4);
      line << loss;
      if (summary.last_validation_loss) line << "  val " << *summary.last_validation_loss;
      line.precision(0);
      line << "  " << summary.samples_per_second << " samples/s  ETA "
           << format_duration(per_step * static_cast<double>(o.steps - state.step));
      const double busy = pass->device_busy_seconds();
      const double interval = std::chrono::duration<double>(Clock::now() - last_log).count();
      last_log = Clock::now();
      if (busy >= 0.0 && interval > 0.0)
        line << "  device idle " << std::max(0.0, 100.0 * (1.0 - busy / interval)) << "%";
      log << line.str() << std::endl;
    }
    if (state.step % o.checkpoint_every == 0 || state.step == o.steps) checkpoint();
  }
  return summary;
}

}  // namespace tts::train
