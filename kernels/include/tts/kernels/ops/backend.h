// The device-op interface: one Backend object per device (the CPU's in ops/cpu_backend.cpp, the
// CUDA one in kernels/cuda/cuda_backend.cpp), whose virtual ops a model's pass calls on Views in
// that backend's memory. A pass is written once against it (vocoder/teacher_forced.cpp); which
// device runs it is the Backend it is given (ops/backends.h). Each op has the shapes and semantics
// of the CPU kernel of the same name (linear_algebra.h, activations.h, sequence.h, softmax.h,
// conv1d.h, normalization.h, dropout.h, losses.h, alignment.h), which the CPU backend calls, so
// that a pass on the CPU backend gives the bits the CPU kernels give; tests/backend_ops_test.cpp
// checks every op on every built backend against the CPU.
//
// Views are fp32 (tts/kernels/ops/view.h) except where an op says a view "may be 16-bit": a backend
// whose GEMMs take bf16 or fp16 (CUDA) lets the op that produces a GEMM operand write it in the
// GEMM's precision, so that no GEMM rounds its operands itself; the CPU refuses 16-bit views.
//
// Work may be queued asynchronously (CUDA's default stream); download() and the losses wait for
// it. Shape mismatches throw std::invalid_argument naming the op, device failures
// std::runtime_error. Index vectors (ids, frame positions, lengths) reach the ops through the
// objects below, made by the backend once and refilled per batch, so that a device backend uploads
// them and builds its deterministic scatter plans once per batch, not per op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tts/kernels/device.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/ops/view.h"

namespace tts::kernels {

// The format of the operands a GEMM of `precision` takes without rounding them (kFloat32 for
// kFp32).
inline Element operand_element(GemmPrecision precision) {
  return precision == GemmPrecision::kBf16   ? Element::kBfloat16
         : precision == GemmPrecision::kFp16 ? Element::kFloat16
                                             : Element::kFloat32;
}

class Backend;

// Base of the index objects: each knows the backend that made it, which refuses another's.
class BackendObject {
 public:
  explicit BackendObject(const Backend& owner) : owner_(&owner) {}
  virtual ~BackendObject() = default;
  BackendObject(const BackendObject&) = delete;
  BackendObject& operator=(const BackendObject&) = delete;
  const Backend& owner() const { return *owner_; }

 private:
  const Backend* owner_;
};

// Column ids: embedding inputs, softmax targets. `scatter_range` is the number of columns
// embedding_backward adds into (0 when the ids are never scattered, e.g. targets).
class Indices : public BackendObject {
 public:
  using BackendObject::BackendObject;
  virtual void assign(const std::vector<std::int32_t>& ids, int scatter_range) = 0;
};

// Frame positions of add_interpolated_columns over `frames` frame columns.
class Interpolation : public BackendObject {
 public:
  using BackendObject::BackendObject;
  virtual void assign(const std::vector<std::int32_t>& index, const std::vector<float>& weight,
                      int frames) = 0;
};

// Utterances packed end to end (conv1d.h): the columns of each, in order.
class Lengths : public BackendObject {
 public:
  using BackendObject::BackendObject;
  virtual void assign(const std::vector<int>& lengths) = 0;
};

// The durations of repeat_columns: column p of the input repeated durations[p] times.
class Repeats : public BackendObject {
 public:
  using BackendObject::BackendObject;
  virtual void assign(const std::vector<int>& durations) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "cpu" or "cuda".
  virtual const char* name() const = 0;
  // "cpu", or "cuda: NVIDIA H200 (sm_90, …)", for logs.
  virtual std::string describe() const = 0;
  // True when views' data are host pointers the caller may read and write directly (the CPU): host
  // arrays are then used in place instead of copied (Buffer::read_from_host).
  virtual bool host_resident() const = 0;

  // The device's busy time, for the idle fraction a trainer reports: the work queued between a
  // begin_busy() and its end_busy() mark counts, from when the device starts it to when it ends
  // it; busy_seconds() waits for the device, returns the sum since its last call and starts a new
  // one. A host-resident backend works inside the calls themselves: its marks do nothing and
  // busy_seconds() is negative (no device to be idle).
  virtual void begin_busy() {}
  virtual void end_busy() {}
  virtual double busy_seconds() { return -1.0; }
  // Bytes of memory in use on the device now: every allocation on it (this process's buffers,
  // scratch and libraries' workspaces, the CUDA context, and any other process's); negative on a
  // host-resident backend. A pass keeps its buffers from step to step, so after a step this is the
  // step's peak.
  virtual std::int64_t device_memory_in_use() { return -1; }

  // Memory. allocate() gives `count` (> 0) uninitialised floats; upload() and download() copy a
  // contiguous column-major host array of the view's shape; download() waits for queued work.
  virtual float* allocate(std::size_t count) = 0;
  virtual void deallocate(float* data) noexcept = 0;
  virtual void upload(const float* host, View to) = 0;
  virtual void download(View from, float* host) = 0;

  virtual std::unique_ptr<Indices> make_indices() = 0;
  virtual std::unique_ptr<Interpolation> make_interpolation() = 0;
  virtual std::unique_ptr<Lengths> make_lengths() = 0;
  virtual std::unique_ptr<Repeats> make_repeats() = 0;

  // Element-wise. x = 0; to = from; y += x; out = a ⊙ b (out may be a or b). `to` may be 16-bit
  // (rounded to nearest even): a flat fp32 parameter array made into the GEMMs' copy once a step.
  virtual void set_zero(View x) = 0;
  virtual void copy(View from, View to) = 0;
  virtual void add(View x, View y) = 0;
  // x *= factor, in place (the loss scale of mixed-precision training, on a loss's gradient; x may
  // be 16-bit, exact for powers of two).
  virtual void scale(View x, float factor) = 0;
  virtual void multiply(View a, View b, View out) = 0;

  // c = alpha · op(a) · op(b) + beta · c (beta == 0: c's contents ignored). kBf16/kFp16 need a
  // backend that has it (CUDA); the CPU refuses it.
  // a and b may be 16-bit in `precision`'s format, used as they are; fp32 ones are rounded. c may
  // be 16-bit in that format too when beta is 0 (the product rounded once, accumulated in fp32).
  virtual void gemm(View c, View a, Transpose transpose_a, View b, Transpose transpose_b,
                    float alpha, float beta, GemmPrecision precision) = 0;
  // x[:, n] += bias (rows × 1); out (rows × 1) += the sum of each row of x (x may be 16-bit).
  virtual void add_bias(View x, View bias) = 0;
  virtual void accumulate_row_sums(View out, View x) = 0;

  // y = max(x, 0) (y may be x); dx = dy where y > 0, else 0 (dx may be dy; y and dx may be 16-bit,
  // both of one format).
  virtual void relu_forward(View x, View y) = 0;
  virtual void relu_backward(View dy, View y, View dx) = 0;
  // The WaveNet gate: z (2R rows: filter, then gate); gated = tanh(filter) ⊙ sigmoid(gate), the
  // two factors kept (contiguous R × N) for gate_backward, which writes dz (2R rows); in
  // gate_backward the factors and dz may be 16-bit, all of one format.
  virtual void gate_forward(View z, View gated, View tanh_out, View sigmoid_out) = 0;
  virtual void gate_backward(View d_gated, View tanh_out, View sigmoid_out, View dz) = 0;

  // Fused passes of a WaveNet layer. Each default is the ops above in the order that gives the
  // unfused pass's bits (kernels/ops/fused_ops.cpp); a device overrides it with one kernel, so that
  // an activation is read and written once instead of once per op.
  //
  // A layer's input: h_out = h + bias (bias without data: h_out = h; h_out may be h), then
  // stacked (2R rows) = [h_out causally shifted by `shift` within each segment; h_out]. stacked may
  // be 16-bit.
  virtual void wavenet_layer_input(View h, View bias, int shift, int segments, View h_out,
                                   View stacked);
  // Its adjoint for the residual stream: d_h += d_in's bottom R rows, then
  // causal_shift_backward of its top R rows into d_h; `rounded` (no data: none) receives the new
  // d_h in its 16-bit format, for the GEMMs that read it. d_in may be 16-bit; a device backend
  // takes `rounded` only in d_in's format.
  virtual void wavenet_layer_input_backward(View d_in, int shift, int segments, View d_h,
                                            View rounded);
  // z += frames interpolated at `at` (add_interpolated_columns), then gate_forward; z's contents
  // are unspecified afterwards. z, gated and the kept factors may be 16-bit, all of one format.
  virtual void conditioned_gate_forward(View z, View frames, const Interpolation& at, View gated,
                                        View tanh_out, View sigmoid_out);
  // gate_backward into dz, then add_interpolated_columns_backward of dz into d_frames (the
  // conditioning's frames, 2R rows): the adjoint of conditioned_gate_forward. The kept factors and
  // dz may be 16-bit, of one format; d_frames' sums read dz as stored.
  virtual void conditioned_gate_backward(View d_gated, View tanh_out, View sigmoid_out,
                                         const Interpolation& at, View dz, View d_frames);
  // y = max(x + bias, 0) (y may be x, or 16-bit); x's contents are unspecified afterwards.
  virtual void bias_relu_forward(View x, View bias, View y);

  // out[:, s·T + t] = x[:, s·T + t - shift] for t ≥ shift, else 0 (T = cols / segments); and the
  // adjoint, dx[:, s·T + t] += d_out[:, s·T + t + shift] for t + shift < T.
  virtual void causal_shift(View x, int shift, int segments, View out) = 0;
  virtual void causal_shift_backward(View d_out, int shift, int segments, View dx) = 0;
  // out[:, n] += (1 - w[n])·frames[:, i[n]] + w[n]·frames[:, i[n] + 1]; and d_frames += its
  // adjoint (d_out may be 16-bit), summed in a fixed order (increasing n) so that every backend
  // repeats bit for bit.
  virtual void add_interpolated_columns(View frames, const Interpolation& at, View out) = 0;
  virtual void add_interpolated_columns_backward(View d_out, const Interpolation& at,
                                                 View d_frames) = 0;
  // out[:, n] = table[:, ids[n]]; d_table[:, ids[n]] += d_out[:, n] (in increasing n).
  virtual void embedding_lookup(View table, const Indices& ids, View out) = 0;
  virtual void embedding_backward(View d_out, const Indices& ids, View d_table) = 0;
  // out (C × Σd) = x (C × P) with column p repeated d[p] times; dx += the adjoint.
  virtual void repeat_columns(View x, const Repeats& durations, View out) = 0;
  virtual void repeat_columns_backward(View d_out, const Repeats& durations, View dx) = 0;

  // unfolded (K·C × N): row block k holds x shifted by k - K/2 within each utterance, zero outside
  // it (K odd); dx += the adjoint applied to d_unfolded.
  virtual void conv1d_unfold(View x, int kernel_size, const Lengths& lengths, View unfolded) = 0;
  virtual void conv1d_unfold_backward(View d_unfolded, int kernel_size, const Lengths& lengths,
                                      View dx) = 0;
  // Layer norm over each column's rows: normalized = x̂, inv_std (N values, 1 × N or N × 1),
  // y = γ ⊙ x̂ + β (y may be x). Backward: dx overwritten, d_gamma and d_beta accumulated.
  virtual void layer_norm_forward(View x, View gamma, View beta, float epsilon, View normalized,
                                  View inv_std, View y) = 0;
  virtual void layer_norm_backward(View dy, View normalized, View inv_std, View gamma, View dx,
                                   View d_gamma, View d_beta) = 0;
  // The inverted-dropout mask of (rate, seed), element for element as kernels::dropout_mask.
  virtual void dropout_mask(float rate, std::uint64_t seed, View keep) = 0;

  // Losses: the mean over columns of -log softmax(logits)[target], with its gradient in d_logits
  // (may be 16-bit) unless d_logits has no data; mean((p - t)²) and mean(|p - t|) with `scale`
  // times their gradient in d_prediction (overwritten). They wait for the device.
  virtual double softmax_cross_entropy(View logits, const Indices& targets, View d_logits) = 0;
  virtual double mse_loss(View prediction, View target, View d_prediction, float scale) = 0;
  virtual double l1_loss(View prediction, View target, View d_prediction, float scale) = 0;

 protected:
  // `object` cast to this backend's implementation T; std::invalid_argument when another backend
  // made it (its data would live in the wrong memory).
  template <typename T>
  const T& mine(const BackendObject& object, const char* op) const {
    if (&object.owner() != this)
      throw std::invalid_argument(std::string(name()) + "::" + op + ": index data made by the " +
                                  object.owner().name() + " backend");
    return static_cast<const T&>(object);
  }
};

}  // namespace tts::kernels
