#include "tts/train/vocoder_trainer.h"

#include <cmath>
#include <memory>
#include <optional>
#include <ostream>

#include "tts/kernels/atomic_file.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/train/predicted_mels.h"
#include "tts/train/training_run.h"
#include "tts/vocoder/model_files.h"
#include "vocoder_task.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

// The starting model of --init-from, read first: it may decide the architecture (also when the run
// resumes, so that the same command line continues it; its weights are then not used).
std::optional<vocoder::VocoderModel> read_starting_vocoder(VocoderTrainingOptions& o) {
  std::optional<vocoder::VocoderModel> start;
  if (o.init_from.empty()) return start;
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
  return start;
}

// The corpus every rank loads (the same on each), the predicted frames it may take, and the list
// of the clips held out for validation (rank 0 writes it).
AudioCorpus load_vocoder_corpus(const VocoderTrainingOptions& o, const TrainingRun& run) {
  AudioCorpusOptions corpus_options;
  corpus_options.features = o.features;
  corpus_options.classes = o.config.classes;
  corpus_options.preemphasis = o.config.preemphasis;
  corpus_options.threads = o.loader_threads;
  AudioCorpus corpus = load_audio_corpus(o.data_dir, corpus_options);
  std::ostream& log = run.log();
  run.warn(corpus.warnings);
  log << "corpus: " << corpus.training.size() << " training and " << corpus.validation.size()
      << " validation files from " << o.data_dir.string() << "\n";
  std::size_t samples = 0;
  for (const auto& u : corpus.training) samples += u.classes.size();
  check_same_on_every_rank(run.ranks(), "the training corpus (files, samples)",
                           std::to_string(corpus.training.size()) + ", " + std::to_string(samples));
  if (!o.predicted_mels_dir.empty()) {
    std::vector<std::string> warnings;
    const int attached = attach_predicted_mels(corpus.training, o.predicted_mels_dir, warnings);
    run.warn(warnings);
    log << "predicted frames for " << attached << " training files from "
        << o.predicted_mels_dir.string() << ", each crop takes them with probability "
        << o.predicted_share << "\n";
  }
  if (run.writer()) {
    // Which clips were held out, so copy-synthesis can be scored on audio the model never saw.
    std::string held_out;
    for (const auto& u : corpus.validation) held_out += u.path.string() + "\n";
    fs::create_directories(o.out_dir);
    kernels::write_file_atomically(o.out_dir / "validation-files.txt", held_out);
  }
  return corpus;
}

// This rank's crops of each step: its micro-batches' slices of the step's batch of
// layout.global() crops, drawn from step `first` on.
std::unique_ptr<CropBatchQueue> crop_queue(const VocoderTrainingOptions& o,
                                           const BatchLayout& layout, const AudioCorpus& corpus,
                                           int64_t first) {
  CropOptions training_crops{o.batch_segments, o.batch_length, o.config.hop_length,
                             o.config.classes};
  if (!o.predicted_mels_dir.empty()) training_crops.predicted_share = o.predicted_share;
  training_crops.segments = layout.global();
  std::vector<CropSlice> slices;
  for (int k = 0; k < layout.accumulate; ++k)
    slices.push_back({layout.first_item(k), layout.micro});
  return std::make_unique<CropBatchQueue>(corpus.training, training_crops, o.seed, first, 4,
                                          slices);
}

}  // namespace

float learning_rate_at(const VocoderTrainingOptions& o, int64_t step) {
  const double warm =
      o.warmup_steps > 0 ? std::min(1.0, static_cast<double>(step) / o.warmup_steps) : 1.0;
  return static_cast<float>(o.adam.learning_rate * warm *
                            std::pow(0.5, static_cast<double>(step) / o.lr_halving_steps));
}

VocoderTrainingSummary train_vocoder(const VocoderTrainingOptions& options,
                                     std::ostream& rank_log) {
  VocoderTrainingOptions o = options;
  const TrainingRun run(o.communicator, rank_log, o.batch_segments, o.accumulate);
  std::ostream& log = run.log();
  const BatchLayout& layout = run.layout();
  const std::optional<vocoder::VocoderModel> start = read_starting_vocoder(o);
  vocoder::check_features_match(o.config, o.features);
  // The device first: an unusable --device or --precision fails before the corpus is loaded.
  vocoder::WaveNetWeights model(o.config);
  const std::unique_ptr<vocoder::TrainingPass> pass = vocoder::make_training_pass(model, o.device);
  const RunStart run_start{o.out_dir,
                           o.resume,
                           o.seed,
                           o.steps,
                           o.loss_scaling,
                           o.device.precision,
                           {{"features", o.features}, {"data", recorded_folder(o.data_dir)}}};
  const auto resumed = check_run_resume(
      run, run_start,
      [](const fs::path& out, std::vector<std::string>* warnings) {
        return read_vocoder_checkpoint_header(out, warnings);
      },
      [](const nlohmann::json& header) { return header.at("seed").get<uint64_t>(); });
  if (resumed && resumed->already_trained) {
    VocoderTrainingSummary done;
    done.first_step = done.last_step = resumed->step;
    done.already_trained = true;
    return done;
  }
  check_same_on_every_rank(
      run.ranks(), "the run's settings",
      nlohmann::json{{"model", vocoder::vocoder_json(o.config, o.features)},
                     {"seed", o.seed},
                     {"steps", o.steps},
                     {"batch", batch_layout_json(layout)},
                     {"crop", o.batch_length},
                     {"predicted_share", o.predicted_mels_dir.empty() ? 0.0 : o.predicted_share}}
          .dump());
  const AudioCorpus corpus = load_vocoder_corpus(o, run);

  VocoderTrainingState state;
  state.config = o.config;
  state.features = o.features;
  state.data = run_start.inputs.at("data");
  state.seed = o.seed;
  state.batch = layout;
  start_training_state<VocoderTrainingState>(
      state, model.parameters(), run, run_start,
      [&](VocoderTrainingState& s) { load_vocoder_checkpoint(o.out_dir, s); },
      [&](VocoderTrainingState& s) {
        model.initialise(o.seed);
        if (start) {
          model.parameters() = start->weights->parameters();
          log << "starting from the weights of " << o.init_from.string() << "\n";
        }
        s.weights = s.ema = model.parameters();
      });
  log << "model: " << o.config.layers << " layers, R=" << o.config.residual_channels
      << " S=" << o.config.skip_channels << ", receptive field " << o.config.receptive_field()
      << " samples, " << state.weights.size() << " parameters\n";
  kernels::set_gemm_threads(o.compute_threads);
  run.log_training_pass(pass->describe(), "crops");
  const std::unique_ptr<CropBatchQueue> queue = crop_queue(o, layout, corpus, state.step);

  VocoderTask task(o, layout, corpus, model, *pass, *queue, state);
  const TrainingSchedule schedule = schedule_of(o, !corpus.validation.empty());
  const LoopSummary loop = run_training_loop(task, tensors_of(state), run.ranks(), schedule, log);
  VocoderTrainingSummary summary;
  summary.first_step = loop.first_step;
  summary.last_step = loop.last_step;
  if (!loop.last_losses.empty()) summary.last_loss = loop.last_losses[0];
  summary.last_validation_loss = loop.last_validation;
  summary.samples_per_second = loop.work_per_second;
  return summary;
}

}  // namespace tts::train
