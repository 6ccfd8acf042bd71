#include "vocoder_task.h"

#include <algorithm>
#include <sstream>

#include "tts/audio/audio_file.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/sample_codec.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/teacher_forced.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

// Mean loss of `weights` over a fixed set of held-out crops (the same crops at every validation).
double validation_loss(const vocoder::WaveNetWeights& weights,
                       const std::vector<AudioUtterance>& held, const CropOptions& crops,
                       uint64_t seed) {
  vocoder::TeacherForcedPass pass(weights);
  double total = 0.0;
  const int batches = 2;
  for (int i = 0; i < batches; ++i)
    total += pass.forward(make_crop_batch(held, crops, seed ^ 0x5eedULL, i));
  return total / batches;
}

// Samples the first seconds of the first held-out clip from its real mel (copy-synthesis).
void write_validation_audio(const vocoder::WaveNetWeights& weights, const AudioUtterance& clip,
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

std::string fixed4(double value) {
  std::ostringstream text;
  text.setf(std::ios::fixed);
  text.precision(4);
  text << value;
  return text.str();
}

}  // namespace

VocoderTask::VocoderTask(const VocoderTrainingOptions& o, const BatchLayout& layout,
                         const AudioCorpus& corpus, vocoder::WaveNetWeights& model,
                         vocoder::TrainingPass& pass, CropBatchQueue& queue,
                         const VocoderTrainingState& state)
    : o_(o),
      layout_(layout),
      corpus_(corpus),
      model_(model),
      pass_(pass),
      queue_(queue),
      state_(state),
      ema_model_(o.config),
      crops_{o.batch_segments, o.batch_length, o.config.hop_length, o.config.classes} {}

StepLosses VocoderTask::accumulate(const kernels::ParameterSet& weights, int64_t /*step*/,
                                   kernels::ParameterSet& gradients, float loss_scale) {
  model_.parameters() = weights;
  double loss = 0.0;
  for (int k = 0; k < layout_.accumulate; ++k) {
    const vocoder::Batch batch = queue_.next();  // the queue draws the batches in step order
    loss += pass_.forward(batch);
    pass_.backward(gradients, loss_scale);  // adds
  }
  return {{loss}, static_cast<double>(layout_.global()) * o_.batch_length};
}

double VocoderTask::validate(const kernels::ParameterSet& ema, int64_t step) {
  ema_model_.parameters() = ema;
  const double loss = validation_loss(ema_model_, corpus_.validation, crops_, o_.seed);
  if (o_.validation_audio_seconds > 0)
    write_validation_audio(ema_model_, corpus_.validation.front(), o_.validation_audio_seconds,
                           o_.out_dir / "validation" / ("step-" + std::to_string(step) + ".wav"));
  return loss;
}

void VocoderTask::save() {
  save_vocoder_checkpoint(o_.out_dir, state_);
  ema_model_.parameters() = state_.ema;
  vocoder::save_vocoder(o_.out_dir, ema_model_, o_.features);
}

std::string VocoderTask::describe_losses(const std::vector<double>& values) const {
  return fixed4(values.at(0));
}

std::string VocoderTask::describe_validation(double value) const { return "val " + fixed4(value); }

}  // namespace tts::train
