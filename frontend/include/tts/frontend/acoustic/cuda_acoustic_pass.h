// The acoustic model's training pass on a CUDA GPU: the same forward, losses and backward as
// AcousticPass (network.h), call for call, with every activation kept in device memory
// (tts/kernels/cuda/device_ops.h, acoustic_ops.h). Per step the weights and the batch go up and the
// losses and the gradients come down, so the optimiser, clipping, EMA and checkpoints stay the
// CPU's and a run can change device on --resume (as the vocoder's CudaTeacherForcedPass).
//
// With a variance adaptor (config.pitch_energy, variance_adaptor.h) the predictors and the bucket
// embeddings run on the device; what is per token or per frame and small (the contours, the
// per-token targets, the bucket coordinates and the masked MSE of the 1 × tokens predictions)
// is computed on the host by the CPU pass's own functions and goes up or comes down.
//
// Monotonic alignment search stays on the host (alignment_targets.h): a dynamic programme over one
// utterance at a time, on the prior's means, which come down from the GPU for it (a few hundred
// kilobytes a step). Dropout draws the CPU's masks on the device from the same hash, so both
// passes drop the same activations.
//
// kFp32 matches the CPU pass to fp32 rounding (tests/cuda_acoustic_training_test.cpp); kBf16 rounds
// every GEMM operand to bf16. Only built with the CUDA backend (TTS_HAVE_CUDA); CUDA failures throw
// std::runtime_error naming the call, bad batches std::invalid_argument as the CPU pass does.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tts/frontend/acoustic/network.h"
#include "tts/frontend/acoustic/weights.h"
#include "tts/kernels/cuda/kernels.h"
#include "tts/kernels/parameter_set.h"

namespace tts::frontend {

class CudaAcousticPass {
 public:
  // Keeps a reference to `weights`; forward() uploads their current values, so the caller may
  // change them between steps.
  CudaAcousticPass(const AcousticWeights& weights, AcousticLossSettings settings = {},
                   kernels::cuda::GemmPrecision precision = kernels::cuda::GemmPrecision::kFp32);
  ~CudaAcousticPass();
  CudaAcousticPass(const CudaAcousticPass&) = delete;
  CudaAcousticPass& operator=(const CudaAcousticPass&) = delete;

  // As AcousticPass::forward: empty `durations` means monotonic alignment search.
  AcousticLosses forward(const AcousticBatch& batch, const std::vector<int>& durations = {},
                         uint64_t dropout_seed = 0);
  // Adds the gradient of the last forward()'s total loss to `gradients` (the weights' layout).
  void backward(kernels::ParameterSet& gradients);

  // The last forward()'s durations, and (copied to the host, for tests) its normalised predicted
  // frames (n_mels × Σ frames) and log-durations (1 × ids).
  const std::vector<int>& durations() const { return durations_; }
  kernels::Matrix predicted_mel() const;
  kernels::Matrix log_durations() const;
  // The last forward()'s normalised token pitch and energy (1 × ids; empty without a variance
  // adaptor), as AcousticPass::predicted_pitch() and predicted_energy().
  const kernels::Matrix& predicted_pitch() const { return predicted_pitch_; }
  const kernels::Matrix& predicted_energy() const { return predicted_energy_; }

  struct Device;  // internal: the device buffers

 private:
  const AcousticWeights& weights_;
  AcousticLossSettings settings_;
  kernels::cuda::GemmPrecision precision_;
  std::unique_ptr<Device> device_;
  std::vector<int> durations_;
  kernels::Matrix predicted_pitch_, predicted_energy_;  // downloaded for the host's masked MSE
  bool have_forward_ = false;
};

}  // namespace tts::frontend
