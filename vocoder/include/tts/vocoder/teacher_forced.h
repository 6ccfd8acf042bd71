// The parallel (teacher-forced) WaveNet: forward over whole crops with the true previous samples as
// input, the cross-entropy loss, and the backward pass that training needs.
#pragma once

#include "tts/kernels/parameter_set.h"
#include "tts/vocoder/batch.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

// Throws std::invalid_argument naming what is wrong when `batch` does not fit the model `config`
// (sizes, class and frame ranges). Both passes, CPU and CUDA, check their batch with it.
void check_training_batch(const Batch& batch, const WaveNetConfig& config);

class TeacherForcedPass {
 public:
  // Keeps a reference to `weights`; they must outlive this object and not change between a
  // forward() and its backward().
  explicit TeacherForcedPass(const WaveNetWeights& weights);

  // Runs the network on `batch`, keeps the activations, and returns the mean cross-entropy in nats.
  double forward(const Batch& batch);

  // Logits (classes × columns) of the last forward().
  const kernels::Matrix& logits() const { return logits_; }

  // Adds the gradient of the last forward()'s mean loss to `gradients` (same layout as the
  // weights).
  void backward(kernels::ParameterSet& gradients);

 private:
  const WaveNetWeights& weights_;
  const Batch* batch_ = nullptr;
  // Kept activations, per layer i where noted.
  kernels::Matrix conditioning_;                 // L·2R × frames: projected mel plus gate bias
  std::vector<kernels::Matrix> dilated_in_;      // i: 2R × N, [h shifted by the dilation; h]
  std::vector<kernels::Matrix> tanh_, sigmoid_;  // i: R × N
  kernels::Matrix gated_;                        // L·R × N, every layer's gate output stacked
  kernels::Matrix skip_relu_, hidden_relu_, logits_, d_logits_;
  // Backward scratch, kept between steps: large buffers would otherwise be mapped and faulted in
  // again on every step.
  kernels::Matrix h_, z_, d_hidden_, d_skip_, d_gated_, d_h_, dz_, d_in_, d_conditioning_;
};

}  // namespace tts::vocoder
