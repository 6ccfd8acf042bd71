// The parallel (teacher-forced) WaveNet: forward over whole crops with the true previous samples as
// input, the cross-entropy loss, and the backward pass that training needs. Written once against
// the device-op interface (tts/kernels/ops/backend.h): on the CPU backend it computes what the CPU
// kernels give, bit for bit; on the CUDA backend every activation stays in device memory, and per
// step only the weights (one flat buffer) and the batch go up and the loss and the gradients come
// down, so the optimiser, clipping, EMA and checkpoints stay the CPU's and a run trained on either
// device resumes on the other.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tts/kernels/ops/backend.h"
#include "tts/kernels/ops/buffer.h"
#include "tts/kernels/parameter_set.h"
#include "tts/vocoder/batch.h"
#include "tts/vocoder/training_pass.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

// Throws std::invalid_argument naming what is wrong when `batch` does not fit the model `config`
// (sizes, class and frame ranges).
void check_training_batch(const Batch& batch, const WaveNetConfig& config);

class TeacherForcedPass final : public TrainingPass {
 public:
  // Keeps a reference to `weights`; they must outlive this object and not change between a
  // forward() and its backward() (forward() reads their current values, so the trainer may change
  // them between steps). The first form runs on the CPU; kBf16 needs a backend that has it.
  explicit TeacherForcedPass(const WaveNetWeights& weights);
  TeacherForcedPass(const WaveNetWeights& weights, kernels::Backend& backend,
                    kernels::GemmPrecision precision = kernels::GemmPrecision::kFp32);

  // Runs the network on `batch`, keeps the activations, and returns the mean cross-entropy in nats.
  // On the CPU the batch must outlive the backward() that follows.
  double forward(const Batch& batch) override;

  // Adds the gradient of the last forward()'s mean loss, times `loss_scale`, to `gradients` (same
  // layout as the weights). The scale multiplies the logits' gradient, the top of the backward
  // pass.
  void backward(kernels::ParameterSet& gradients, float loss_scale = 1.0f) override;

  std::string describe() const override;
  double device_busy_seconds() override;
  std::int64_t device_memory_in_use() override { return backend_.device_memory_in_use(); }

  // Logits (classes × columns) of the last forward(), copied to the host.
  kernels::Matrix logits() const { return logits_.download(); }

 private:
  // Entry `index` of a flat parameter buffer as a view.
  kernels::View entry(const kernels::View& flat, int index) const;

  const WaveNetWeights& weights_;
  kernels::Backend& backend_;
  kernels::GemmPrecision precision_;
  bool have_forward_ = false;
  // The loss scale d_logits_ holds (forward() leaves 1): a second backward() of one forward()
  // rescales it by the ratio, exact for the powers of two a loss scaler uses.
  float d_logits_scale_ = 1.0f;
  int segments_ = 0;
  // The weights, the mel and the gradients: the host arrays themselves on the CPU. The GEMMs read
  // gemm_weights_view_: the weights themselves in fp32, their rounded copy in bf16 or fp16.
  kernels::Buffer weights_on_device_{backend_}, mel_on_device_{backend_},
      gradients_on_device_{backend_}, gemm_weights_{backend_};
  kernels::View weights_view_, gemm_weights_view_, mel_;
  // The batch's index vectors, and the adjoints' order of summation.
  std::unique_ptr<kernels::Indices> inputs_ = backend_.make_indices(),
                                    targets_ = backend_.make_indices();
  std::unique_ptr<kernels::Interpolation> frames_ = backend_.make_interpolation();
  // Kept activations, per layer i where noted.
  kernels::Buffer conditioning_{backend_};       // L·2R × frames: projected mel plus gate bias
  std::vector<kernels::Buffer> dilated_in_;      // i: 2R × N, [h shifted by the dilation; h]
                                                 // (h with the previous layer's residual bias)
  std::vector<kernels::Buffer> tanh_, sigmoid_;  // i: R × N
  kernels::Buffer gated_{backend_};              // L·R × N, every layer's gate output stacked
  kernels::Buffer skip_relu_{backend_}, hidden_relu_{backend_}, logits_{backend_},
      d_logits_{backend_};
  // Scratch, kept between steps: large buffers would otherwise be mapped and faulted in again on
  // every step. The *_rounded_ ones and product_ (the head's fp32 GEMM products) exist only in a
  // bf16/fp16 pass; h_other_ only on a device (the residual stream's second buffer).
  kernels::Buffer h_{backend_}, h_other_{backend_}, z_{backend_}, product_{backend_},
      d_hidden_{backend_}, d_skip_{backend_}, d_hidden_rounded_{backend_},
      d_skip_rounded_{backend_}, d_gated_{backend_}, d_h_{backend_}, d_h_rounded_{backend_},
      dz_{backend_}, d_in_{backend_}, d_conditioning_{backend_};
};

}  // namespace tts::vocoder
