// The vocoder's part of the training loop (tts/train/training_loop.h): random crops of the corpus
// through the teacher-forced pass; validation on held-out crops (and audio sampled from the first
// held-out clip); the checkpoint and the exported vocoder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tts/train/audio_corpus.h"
#include "tts/train/crop_batches.h"
#include "tts/train/training_loop.h"
#include "tts/train/vocoder_checkpoint.h"
#include "tts/train/vocoder_trainer.h"
#include "tts/vocoder/training_pass.h"
#include "tts/vocoder/weights.h"

namespace tts::train {

class VocoderTask : public TrainingTask {
 public:
  VocoderTask(const VocoderTrainingOptions& o, const BatchLayout& layout, const AudioCorpus& corpus,
              vocoder::WaveNetWeights& model, vocoder::TrainingPass& pass, CropBatchQueue& queue,
              const VocoderTrainingState& state);

  StepLosses accumulate(const kernels::ParameterSet& weights, int64_t step,
                        kernels::ParameterSet& gradients, float loss_scale) override;
  // Each micro-batch's loss and gradient are means over its own crops, all of one size.
  double reduction_divisor() const override { return layout_.micro_batches(); }
  float learning_rate(int64_t step) const override { return learning_rate_at(o_, step); }
  double validate(const kernels::ParameterSet& ema, int64_t step) override;
  void save() override;
  std::string describe_losses(const std::vector<double>& values) const override;
  std::string describe_validation(double value) const override;
  std::string work_unit() const override { return "samples"; }
  double device_busy_seconds() override { return pass_.device_busy_seconds(); }

 private:
  const VocoderTrainingOptions& o_;
  const BatchLayout& layout_;
  const AudioCorpus& corpus_;
  vocoder::WaveNetWeights& model_;
  vocoder::TrainingPass& pass_;
  CropBatchQueue& queue_;
  const VocoderTrainingState& state_;
  vocoder::WaveNetWeights ema_model_;  // the averaged weights, for validation and export
  // Validation always hears the recordings' own frames, so its loss compares across runs.
  CropOptions crops_;
};

}  // namespace tts::train
