#include "tts/acoustic/training_pass.h"

#include "tts/kernels/ops/backends.h"

namespace tts::acoustic {

namespace {

// The trainer's view of an AcousticPass on the backend of its device.
class BackendAcousticTrainingPass final : public AcousticTrainingPass {
 public:
  BackendAcousticTrainingPass(const AcousticWeights& weights, const AcousticLossSettings& settings,
                              const kernels::DeviceChoice& device)
      : pass_(weights, settings, kernels::backend_for(device), device.precision) {}
  AcousticLosses forward(const AcousticBatch& batch, const std::vector<int>& durations,
                         uint64_t dropout_seed, const LossNormalisers& normalisers) override {
    return pass_.forward(batch, durations, dropout_seed, normalisers);
  }
  std::vector<int> align(const AcousticBatch& batch) override { return pass_.align(batch); }
  void backward(kernels::ParameterSet& gradients, float loss_scale) override {
    pass_.backward(gradients, loss_scale);
  }
  std::string describe() const override { return pass_.describe(); }

 private:
  AcousticPass pass_;
};

}  // namespace

std::unique_ptr<AcousticTrainingPass> make_acoustic_training_pass(
    const AcousticWeights& weights, const AcousticLossSettings& settings,
    const kernels::DeviceChoice& device) {
  return std::make_unique<BackendAcousticTrainingPass>(weights, settings, device);
}

}  // namespace tts::acoustic
