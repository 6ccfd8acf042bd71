// The teacher-forced pass a training step runs (TeacherForcedPass, teacher_forced.h) on the backend
// of a `--device`/`--precision` choice (tts/kernels/ops/backends.h), behind one interface so that
// the trainer and `tts bench vocoder` choose the device with an option and run the same loop either
// way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tts/kernels/device.h"
#include "tts/kernels/parameter_set.h"
#include "tts/vocoder/batch.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

class TrainingPass {
 public:
  virtual ~TrainingPass() = default;
  // The mean cross-entropy of `batch` in nats; keeps what backward() needs.
  virtual double forward(const Batch& batch) = 0;
  // Adds the gradient of the last forward()'s loss, times `loss_scale`, to `gradients`. The scale
  // multiplies the loss's own gradient before anything else, so every gradient after it (and every
  // GEMM operand, which fp16 rounds) is scaled: dynamic loss scaling (tts/train/loss_scaler.h).
  // 1 computes exactly what an unscaled pass does.
  virtual void backward(kernels::ParameterSet& gradients, float loss_scale = 1.0f) = 0;
  // "cpu" or "cuda: NVIDIA H200 (sm_90, …), bf16 GEMMs", for logs.
  virtual std::string describe() const = 0;
  // Seconds the device spent on the passes since the last call, waiting for it to finish them;
  // negative on the CPU. Over a stretch of wall time it gives the device's idle fraction: what the
  // host's own work (the batch, the optimiser, the copies) kept it waiting.
  virtual double device_busy_seconds() = 0;
  // Bytes in use on the pass's device now (kernels::Backend::device_memory_in_use); negative on
  // the CPU.
  virtual std::int64_t device_memory_in_use() = 0;
};

// Throws as kernels::check_device_choice for an unusable choice.
std::unique_ptr<TrainingPass> make_training_pass(const WaveNetWeights& weights,
                                                 const kernels::DeviceChoice& device);

}  // namespace tts::vocoder
