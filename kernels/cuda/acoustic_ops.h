// The device operations the acoustic model's training step needs beyond the WaveNet's
// (device_ops.h): each mirrors the CPU kernel of the same name (conv1d.h, normalization.h,
// dropout.h, losses.h) with the same shapes and semantics; the CUDA backend (cuda_backend.cpp)
// calls them for the device-op interface's ops of those names. Work is queued on
// the default stream; only the losses wait, for their value. Shape mismatches throw
// std::invalid_argument naming the operation; CUDA failures std::runtime_error.
//
// Only available when the CUDA backend is built (TTS_HAVE_CUDA).
#pragma once

#include <cstdint>
#include <vector>

#include "device_tensor.h"

namespace tts::kernels::cuda {

// A batch of whole utterances packed end to end (kernels/conv1d.h), on the device: for each
// column, where its utterance begins and ends, so that a convolution never reads across an edge.
class PackedColumns {
 public:
  PackedColumns() = default;
  // Throws std::invalid_argument for a negative length.
  explicit PackedColumns(const std::vector<int>& lengths);
  int columns() const { return columns_; }
  const DeviceArray<std::int32_t>& bounds() const { return bounds_; }  // [begin, end) per column

 private:
  int columns_ = 0;
  DeviceArray<std::int32_t> bounds_;
};

// unfolded (K·C × N): row block k holds x (C × N) shifted by k - K/2 within each utterance, zero
// where that reads outside it; and dx += its adjoint applied to d_unfolded. K must be odd.
void conv1d_unfold(DeviceView x, int kernel_size, const PackedColumns& columns,
                   DeviceView unfolded);
void conv1d_unfold_backward(DeviceView d_unfolded, int kernel_size, const PackedColumns& columns,
                            DeviceView dx);

// Layer normalisation over the rows of each column: normalized = x̂, inv_std (1 × N), y = γ ⊙ x̂ + β
// (y may be x). Backward: dx overwritten, d_gamma and d_beta (C × 1) accumulated.
void layer_norm_forward(DeviceView x, DeviceView gamma, DeviceView beta, float epsilon,
                        DeviceView normalized, DeviceView inv_std, DeviceView y);
void layer_norm_backward(DeviceView dy, DeviceView normalized, DeviceView inv_std, DeviceView gamma,
                         DeviceView dx, DeviceView d_gamma, DeviceView d_beta);

// The mask tts::kernels::dropout_mask draws from (rate, seed), element for element.
void dropout_mask(float rate, std::uint64_t seed, DeviceView keep);

// out = a ⊙ b (out may be a or b); y += x; to = from (views of the same shape, not overlapping).
void multiply(DeviceView a, DeviceView b, DeviceView out);
void add(DeviceView x, DeviceView y);
void copy(DeviceView from, DeviceView to);

// mean((prediction - target)²) and mean(|prediction - target|) over all elements, writing `scale`
// times the gradient into d_prediction (overwritten), as tts::kernels::mse_loss and l1_loss.
double mse_loss(DeviceView prediction, DeviceView target, DeviceView d_prediction,
                float scale = 1.0f);
double l1_loss(DeviceView prediction, DeviceView target, DeviceView d_prediction,
               float scale = 1.0f);

}  // namespace tts::kernels::cuda
