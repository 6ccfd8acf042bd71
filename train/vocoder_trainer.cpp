#include "tts/train/vocoder_trainer.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "tts/audio/audio_file.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/train/checkpoint.h"
#include "tts/train/crop_batches.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/predicted_mels.h"
#include "tts/train/training_loop.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/sample_codec.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/teacher_forced.h"
#include "tts/vocoder/training_pass.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

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

// The vocoder's part of the training loop: crops of the corpus through the teacher-forced pass.
class VocoderTask : public TrainingTask {
 public:
  VocoderTask(const VocoderTrainingOptions& o, const BatchLayout& layout, const Corpus& corpus,
              vocoder::WaveNetWeights& model, vocoder::TrainingPass& pass, BatchQueue& queue,
              const TrainingState& state)
      : o_(o),
        layout_(layout),
        corpus_(corpus),
        model_(model),
        pass_(pass),
        queue_(queue),
        state_(state),
        ema_model_(o.config),
        crops_{o.batch_segments, o.batch_length, o.config.hop_length, o.config.classes} {}

  StepLosses accumulate(const kernels::ParameterSet& weights, int64_t /*step*/,
                        kernels::ParameterSet& gradients, float loss_scale) override {
    model_.parameters() = weights;
    double loss = 0.0;
    for (int k = 0; k < layout_.accumulate; ++k) {
      const vocoder::Batch batch = queue_.next();  // the queue draws the batches in step order
      loss += pass_.forward(batch);
      pass_.backward(gradients, loss_scale);  // adds
    }
    return {{loss}, static_cast<double>(layout_.global()) * o_.batch_length};
  }
  // Each micro-batch's loss and gradient are means over its own crops, all of one size.
  double reduction_divisor() const override { return layout_.micro_batches(); }
  float learning_rate(int64_t step) const override { return learning_rate_at(o_, step); }

  double validate(const kernels::ParameterSet& ema, int64_t step) override {
    ema_model_.parameters() = ema;
    const double loss = validation_loss(ema_model_, corpus_.validation, crops_, o_.seed);
    if (o_.validation_audio_seconds > 0)
      write_validation_audio(ema_model_, corpus_.validation.front(), o_.validation_audio_seconds,
                             o_.out_dir / "validation" / ("step-" + std::to_string(step) + ".wav"));
    return loss;
  }
  void save() override {
    save_checkpoint(o_.out_dir, state_);
    ema_model_.parameters() = state_.ema;
    vocoder::save_vocoder(o_.out_dir, ema_model_, o_.features);
  }

  std::string describe_losses(const std::vector<double>& values) const override {
    return fixed4(values.at(0));
  }
  std::string describe_validation(double value) const override { return "val " + fixed4(value); }
  std::string work_unit() const override { return "samples"; }
  double device_busy_seconds() override { return pass_.device_busy_seconds(); }

 private:
  static std::string fixed4(double value) {
    std::ostringstream text;
    text.setf(std::ios::fixed);
    text.precision(4);
    text << value;
    return text.str();
  }

  const VocoderTrainingOptions& o_;
  const BatchLayout& layout_;
  const Corpus& corpus_;
  vocoder::WaveNetWeights& model_;
  vocoder::TrainingPass& pass_;
  BatchQueue& queue_;
  const TrainingState& state_;
  vocoder::WaveNetWeights ema_model_;  // the averaged weights, for validation and export
  // Validation always hears the recordings' own frames, so its loss compares across runs.
  CropOptions crops_;
};

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
    const ResumePoint point = check_resume(o.out_dir, header, header.at("seed").get<uint64_t>(),
                                           o.seed, o.steps, layout, ranks, log);
    if (point.already_trained) {
      TrainingSummary done;
      done.first_step = done.last_step = point.step;
      done.already_trained = true;
      return done;
    }
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
    check_fresh_start(o.out_dir);
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
  log << "training pass: " << pass->describe() << "\n";
  if (layout.micro_batches() > 1)
    log << "batch: " << layout.describe() << " crops per step, " << ranks.describe() << "\n";
  CropOptions training_crops{o.batch_segments, o.batch_length, o.config.hop_length,
                             o.config.classes};
  if (!o.predicted_mels_dir.empty()) training_crops.predicted_share = o.predicted_share;
  // This rank's micro-batches: its slices of each step's batch of layout.global() crops.
  training_crops.segments = layout.global();
  std::vector<CropSlice> slices;
  for (int k = 0; k < layout.accumulate; ++k)
    slices.push_back({layout.first_item(k), layout.micro});
  BatchQueue queue(corpus.training, training_crops, o.seed, state.step, 4, slices);

  VocoderTask task(o, layout, corpus, model, *pass, queue, state);
  const TrainingSchedule schedule = schedule_of(o, !corpus.validation.empty());
  const LoopSummary loop = run_training_loop(task, tensors_of(state), ranks, schedule, log);
  TrainingSummary summary;
  summary.first_step = loop.first_step;
  summary.last_step = loop.last_step;
  if (!loop.last_losses.empty()) summary.last_loss = loop.last_losses[0];
  summary.last_validation_loss = loop.last_validation;
  summary.samples_per_second = loop.work_per_second;
  return summary;
}

}  // namespace tts::train
