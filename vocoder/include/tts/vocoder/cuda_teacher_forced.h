// The teacher-forced WaveNet pass on a CUDA GPU: the same forward, loss and backward as
// TeacherForcedPass (teacher_forced.h), call for call, with every activation kept in device
// memory (tts/kernels/cuda/device_ops.h). Per step only the weights go up (one flat buffer), the
// batch goes up, and the loss and the gradients come down, so the optimiser, gradient clipping,
// EMA and checkpoints stay the CPU's: a run trained on the GPU writes the same files as one
// trained on the CPU, and either resumes the other.
//
// kFp32 matches the CPU pass to fp32 rounding (tests/cuda_vocoder_training_test.cpp); kBf16 rounds
// every GEMM operand to bf16 (fp32 accumulation, fp32 master weights), the mixed precision of
// issue #4. Only built with the CUDA backend (TTS_HAVE_CUDA); CUDA failures throw
// std::runtime_error naming the call, bad batches std::invalid_argument.
#pragma once

#include <memory>

#include "tts/kernels/cuda/kernels.h"
#include "tts/kernels/parameter_set.h"
#include "tts/vocoder/batch.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

class CudaTeacherForcedPass {
 public:
  // Keeps a reference to `weights`; forward() uploads their current values, so the caller may
  // change them between steps (the trainer does, after each optimiser step).
  explicit CudaTeacherForcedPass(
      const WaveNetWeights& weights,
      kernels::cuda::GemmPrecision precision = kernels::cuda::GemmPrecision::kFp32);
  ~CudaTeacherForcedPass();
  CudaTeacherForcedPass(const CudaTeacherForcedPass&) = delete;
  CudaTeacherForcedPass& operator=(const CudaTeacherForcedPass&) = delete;

  // Runs the network on `batch` on the GPU, keeps the activations there, and returns the mean
  // cross-entropy in nats.
  double forward(const Batch& batch);

  // Adds the gradient of the last forward()'s mean loss to `gradients` (the weights' layout).
  void backward(kernels::ParameterSet& gradients);

  // Logits (classes × columns) of the last forward(), copied to the host (tests).
  kernels::Matrix logits() const;

  struct Device;  // internal: the device buffers

 private:
  const WaveNetWeights& weights_;
  kernels::cuda::GemmPrecision precision_;
  std::unique_ptr<Device> device_;
  int segments_ = 0;
  bool have_forward_ = false;
};

}  // namespace tts::vocoder
