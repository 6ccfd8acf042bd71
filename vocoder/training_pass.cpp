#include "tts/vocoder/training_pass.h"

#include <stdexcept>

#include "tts/kernels/device.h"
#include "tts/vocoder/teacher_forced.h"
#ifdef TTS_HAVE_CUDA
#include "tts/kernels/cuda/kernels.h"
#include "tts/vocoder/cuda_teacher_forced.h"
#endif

namespace tts::vocoder {

namespace {

class CpuTrainingPass final : public TrainingPass {
 public:
  explicit CpuTrainingPass(const WaveNetWeights& weights) : pass_(weights) {}
  double forward(const Batch& batch) override { return pass_.forward(batch); }
  void backward(kernels::ParameterSet& gradients) override { pass_.backward(gradients); }
  std::string describe() const override { return "cpu"; }

 private:
  TeacherForcedPass pass_;
};

#ifdef TTS_HAVE_CUDA
class CudaTrainingPass final : public TrainingPass {
 public:
  CudaTrainingPass(const WaveNetWeights& weights, kernels::cuda::GemmPrecision precision)
      : pass_(weights, precision),
        description_("cuda: " + kernels::cuda::describe_current_device() + ", " +
                     kernels::cuda::to_string(precision) + " GEMMs") {}
  double forward(const Batch& batch) override { return pass_.forward(batch); }
  void backward(kernels::ParameterSet& gradients) override { pass_.backward(gradients); }
  std::string describe() const override { return description_; }

 private:
  CudaTeacherForcedPass pass_;
  std::string description_;
};
#endif

}  // namespace

std::unique_ptr<TrainingPass> make_training_pass(const WaveNetWeights& weights,
                                                 const TrainingPassOptions& options) {
  if (options.precision != "fp32" && options.precision != "bf16")
    throw std::invalid_argument("precision must be fp32 or bf16, not '" + options.precision + "'");
  if (options.device == "cpu") {
    if (options.precision != "fp32")
      throw std::invalid_argument("precision " + options.precision +
                                  " needs --device cuda; the CPU trains in fp32");
    return std::make_unique<CpuTrainingPass>(weights);
  }
  if (options.device != "cuda")
    throw std::invalid_argument("device must be cpu or cuda, not '" + options.device + "'");
#ifdef TTS_HAVE_CUDA
  if (kernels::cuda_device_count() == 0)
    throw std::runtime_error("device cuda: no CUDA device is visible");
  return std::make_unique<CudaTrainingPass>(weights, options.precision == "bf16"
                                                         ? kernels::cuda::GemmPrecision::kBf16
                                                         : kernels::cuda::GemmPrecision::kFp32);
#else
  throw std::invalid_argument(
      "device cuda: this build has no CUDA backend (configure with -DTTS_CUDA=ON on a machine "
      "with the CUDA toolkit)");
#endif
}

}  // namespace tts::vocoder
