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
  CudaTrainingPass(const WaveNetWeights& weights, const TrainingPassOptions& options)
      : pass_(weights, options.precision == "bf16" ? kernels::cuda::GemmPrecision::kBf16
                                                   : kernels::cuda::GemmPrecision::kFp32),
        description_(kernels::describe_training_device(options)) {}
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
  if (!kernels::check_training_device(options)) return std::make_unique<CpuTrainingPass>(weights);
#ifdef TTS_HAVE_CUDA
  return std::make_unique<CudaTrainingPass>(weights, options);
#else
  throw std::logic_error("check_training_device accepted cuda in a build without it");
#endif
}

}  // namespace tts::vocoder
