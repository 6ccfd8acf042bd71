// The acoustic model's training pass (AcousticPass, on the CPU or the CUDA backend)
// behind one interface, so that `tts train acoustic --device` chooses the device and the trainer
// runs the same loop either way (as the vocoder's vocoder/training_pass.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tts/acoustic/network.h"
#include "tts/acoustic/weights.h"
#include "tts/kernels/device.h"
#include "tts/kernels/parameter_set.h"

namespace tts::acoustic {

class AcousticTrainingPass {
 public:
  virtual ~AcousticTrainingPass() = default;
  // As AcousticPass::forward: empty `durations` means monotonic alignment search.
  virtual AcousticLosses forward(const AcousticBatch& batch, const std::vector<int>& durations,
                                 uint64_t dropout_seed, const LossNormalisers& normalisers) = 0;
  // As AcousticPass::align: the durations forward() would search, without the rest of the pass.
  virtual std::vector<int> align(const AcousticBatch& batch) = 0;
  // Adds the gradient of the last forward()'s total loss, times `loss_scale`, to `gradients` (as
  // AcousticPass::backward; 1 computes exactly what an unscaled pass does).
  virtual void backward(kernels::ParameterSet& gradients, float loss_scale = 1.0f) = 0;
  // "cpu" or "cuda: NVIDIA H200 (sm_90, …), fp32 GEMMs", for logs.
  virtual std::string describe() const = 0;
};

// Keeps a reference to `weights` (their current values are used at every forward()). Throws as
// kernels::check_device_choice for an unusable choice.
std::unique_ptr<AcousticTrainingPass> make_acoustic_training_pass(
    const AcousticWeights& weights, const AcousticLossSettings& settings,
    const kernels::DeviceChoice& device);

}  // namespace tts::acoustic
