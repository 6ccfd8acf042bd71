// The acoustic model's part of the training loop (tts/train/training_loop.h): speaker-balanced
// batches of utterances through the acoustic training pass, with alignment search (or a flat start
// for the first steps), dropout masks of their own per step, and layers that may be frozen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tts/acoustic/network.h"
#include "tts/acoustic/training_pass.h"
#include "tts/acoustic/weights.h"
#include "tts/frontend/symbol_table.h"
#include "tts/train/acoustic_checkpoint.h"
#include "tts/train/acoustic_corpus.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/training_loop.h"

namespace tts::train {

// A tensor left as it is: its (offset, size) in the parameter set.
using FrozenTensor = std::pair<std::size_t, std::size_t>;

// The seed of alignment restart k: the run's own seed first, then well-mixed others.
uint64_t restart_seed(uint64_t seed, int k);

struct AcousticTaskParts {
  const AcousticTrainingOptions& options;
  const BatchLayout& layout;
  Communicator& ranks;
  const std::vector<AcousticUtterance>& training;
  const std::vector<AcousticUtterance>& validation;
  int speakers = 1;  // of the training utterances, balanced in every batch
  acoustic::AcousticWeights& model;
  acoustic::AcousticTrainingPass& pass;
  const acoustic::AcousticLossSettings& settings;
  const acoustic::AcousticLossSettings& held_out_settings;  // as synthesis runs: no dropout
  const AcousticTrainingState& state;  // its seed draws the batches; saved at checkpoints
  std::vector<FrozenTensor> frozen;
  const frontend::SymbolTable& symbols;
};

class AcousticTask : public TrainingTask {
 public:
  explicit AcousticTask(AcousticTaskParts parts);

  StepLosses accumulate(const kernels::ParameterSet& weights, int64_t step,
                        kernels::ParameterSet& gradients, float loss_scale) override;
  float learning_rate(int64_t step) const override;
  void before_update(kernels::ParameterSet& gradients) override;
  void after_update(const OptimizerTensors& tensors) override;
  double validate(const kernels::ParameterSet& ema, int64_t step) override;
  void save() override;
  std::string describe_losses(const std::vector<double>& values) const override;
  std::string describe_validation(double value) const override;
  std::string work_unit() const override { return "frames"; }

  // The losses of a step's reduced values (accumulate's order).
  static acoustic::AcousticLosses losses_of(const std::vector<double>& values);

 private:
  AcousticTaskParts p_;
  acoustic::AcousticWeights ema_model_;  // the averaged weights, for validation and export
};

}  // namespace tts::train
