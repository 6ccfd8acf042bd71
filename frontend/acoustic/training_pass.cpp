#include "tts/frontend/acoustic/training_pass.h"

#include <stdexcept>

#ifdef TTS_HAVE_CUDA
#include "tts/frontend/acoustic/cuda_acoustic_pass.h"
#endif

namespace tts::frontend {

namespace {

class CpuAcousticTrainingPass final : public AcousticTrainingPass {
 public:
  CpuAcousticTrainingPass(const AcousticWeights& weights, const AcousticLossSettings& settings)
      : pass_(weights, settings) {}
  AcousticLosses forward(const AcousticBatch& batch, const std::vector<int>& durations,
                         uint64_t dropout_seed) override {
    return pass_.forward(batch, durations, dropout_seed);
  }
  void backward(kernels::ParameterSet& gradients) override { pass_.backward(gradients); }
  std::string describe() const override { return "cpu"; }

 private:
  AcousticPass pass_;
};

#ifdef TTS_HAVE_CUDA
class CudaAcousticTrainingPass final : public AcousticTrainingPass {
 public:
  CudaAcousticTrainingPass(const AcousticWeights& weights, const AcousticLossSettings& settings,
                           const kernels::TrainingDevice& device)
      : pass_(weights, settings,
              device.precision == "bf16" ? kernels::cuda::GemmPrecision::kBf16
                                         : kernels::cuda::GemmPrecision::kFp32),
        description_(kernels::describe_training_device(device)) {}
  AcousticLosses forward(const AcousticBatch& batch, const std::vector<int>& durations,
                         uint64_t dropout_seed) override {
    return pass_.forward(batch, durations, dropout_seed);
  }
  void backward(kernels::ParameterSet& gradients) override { pass_.backward(gradients); }
  std::string describe() const override { return description_; }

 private:
  CudaAcousticPass pass_;
  std::string description_;
};
#endif

}  // namespace

std::unique_ptr<AcousticTrainingPass> make_acoustic_training_pass(
    const AcousticWeights& weights, const AcousticLossSettings& settings,
    const kernels::TrainingDevice& device) {
  if (!kernels::check_training_device(device))
    return std::make_unique<CpuAcousticTrainingPass>(weights, settings);
  if (weights.config().speakers > 1)
    throw std::invalid_argument(
        "an acoustic model of several speakers trains on the CPU only for now (the CUDA pass has "
        "no speaker embedding): use --device cpu");
#ifdef TTS_HAVE_CUDA
  return std::make_unique<CudaAcousticTrainingPass>(weights, settings, device);
#else
  throw std::logic_error("check_training_device accepted cuda in a build without it");
#endif
}

}  // namespace tts::frontend
