// The teacher-forced pass a training step runs, on the CPU (TeacherForcedPass) or on a CUDA GPU
// (CudaTeacherForcedPass), behind one interface so that the trainer and `tts bench vocoder` choose
// the device with an option and run the same loop either way.
#pragma once

#include <memory>
#include <string>

#include "tts/kernels/parameter_set.h"
#include "tts/vocoder/batch.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

struct TrainingPassOptions {
  std::string device = "cpu";      // "cpu" or "cuda"
  std::string precision = "fp32";  // "fp32", or "bf16" (GEMM operands in bf16; CUDA only)
};

class TrainingPass {
 public:
  virtual ~TrainingPass() = default;
  // The mean cross-entropy of `batch` in nats; keeps what backward() needs.
  virtual double forward(const Batch& batch) = 0;
  // Adds the gradient of the last forward()'s loss to `gradients`.
  virtual void backward(kernels::ParameterSet& gradients) = 0;
  // "cpu" or "cuda: NVIDIA H200 (sm_90, …), bf16 GEMMs", for logs.
  virtual std::string describe() const = 0;
};

// Throws std::invalid_argument for an unknown device or precision, bf16 on the CPU, or "cuda" in a
// build without the CUDA backend; std::runtime_error when no CUDA device is visible.
std::unique_ptr<TrainingPass> make_training_pass(const WaveNetWeights& weights,
                                                 const TrainingPassOptions& options);

}  // namespace tts::vocoder
