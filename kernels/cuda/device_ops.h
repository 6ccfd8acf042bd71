// The kernels of a WaveNet training step on device-resident operands (tts/kernels/cuda/
// device_tensor.h): each mirrors the CPU kernel of the same name (linear_algebra.h,
// activations.h, sequence.h, softmax.h) with the same shapes and semantics, so that the CUDA
// backend (kernels/cuda/cuda_backend.cpp) forwards each op of the device-op interface
// (tts/kernels/ops/backend.h) to the kernel of the same name and a pass written once runs on
// either device. Nothing is copied to or from the host: the calls queue work on the default stream
// and return; only softmax_cross_entropy waits, for its loss.
//
// Inputs are DeviceViews too (a view does not carry constness). Index vectors (ids, frame
// positions, targets) are device arrays, already checked by the caller (the model checks its batch
// on the host before uploading it). Shape mismatches throw std::invalid_argument naming the
// operation; CUDA and cuBLAS failures std::runtime_error.
#pragma once

#include <cstdint>
#include <vector>

#include "device_tensor.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/ops/backend.h"

namespace tts::kernels::cuda {

// c = alpha · op(a) · op(b) + beta · c through cuBLAS. kBf16 takes bf16 operands as they are and
// rounds fp32 ones to bf16 into scratch memory first, kFp16 the same with IEEE half (fp32
// accumulation and output, tensor cores); kFp32 is fp32 throughout, no TF32.
void gemm(DeviceView c, DeviceView a, Transpose transpose_a, DeviceView b, Transpose transpose_b,
          float alpha = 1.0f, float beta = 0.0f, GemmPrecision precision = GemmPrecision::kFp32);

// x *= factor, in place (cuBLAS geam: x = factor·x + 0·x).
void scale(DeviceView x, float factor);

// x[:, n] += bias (bias: rows × 1).
void add_bias(DeviceView x, DeviceView bias);
// out += the sum of each row of x (out: rows × 1). Deterministic: one block per row.
void accumulate_row_sums(DeviceView out, DeviceView x);

// y = max(x, 0) (y may be x); dx = dy where y > 0, else 0 (dx may be dy).
void relu_forward(DeviceView x, DeviceView y);
void relu_backward(DeviceView dy, DeviceView y, DeviceView dx);

// The WaveNet gate: z has 2R rows (filter, then gate); gated = tanh(filter) ⊙ sigmoid(gate), and
// the two factors are kept for the backward pass. dz (2R rows) from d_gated.
void gate_forward(DeviceView z, DeviceView gated, DeviceView tanh_out, DeviceView sigmoid_out);
void gate_backward(DeviceView d_gated, DeviceView tanh_out, DeviceView sigmoid_out, DeviceView dz);

// out[:, s·T + t] = x[:, s·T + t - shift] for t ≥ shift, else 0 (T = cols / segments); and its
// adjoint, dx[:, s·T + t] += d_out[:, s·T + t + shift] for t + shift < T.
void causal_shift(DeviceView x, int shift, int segments, DeviceView out);
void causal_shift_backward(DeviceView d_out, int shift, int segments, DeviceView dx);

// The fused passes of a WaveNet layer (wavenet_ops.cpp), as the device-op interface's
// wavenet_layer_input, wavenet_layer_input_backward, conditioned_gate_forward,
// conditioned_gate_backward and bias_relu_forward (tts/kernels/ops/backend.h); 16-bit outputs where
// that says so.
void wavenet_layer_input(DeviceView h, DeviceView bias, int shift, int segments, DeviceView h_out,
                         DeviceView stacked);
void wavenet_layer_input_backward(DeviceView d_in, int shift, int segments, DeviceView d_h,
                                  DeviceView rounded);
void conditioned_gate_forward(DeviceView z, DeviceView frames,
                              const DeviceArray<std::int32_t>& index,
                              const DeviceArray<float>& weight, DeviceView gated,
                              DeviceView tanh_out, DeviceView sigmoid_out);
void bias_relu_forward(DeviceView x, DeviceView bias, DeviceView y);
// conditioned_gate_backward for frame positions that never decrease (see
// interpolation_backward_sorted below): gate_backward and that adjoint in one kernel, the pair's
// bits.
void conditioned_gate_backward_sorted(DeviceView d_gated, DeviceView tanh_out,
                                      DeviceView sigmoid_out,
                                      const DeviceArray<std::int32_t>& first,
                                      const DeviceArray<float>& weight, DeviceView dz,
                                      DeviceView d_frames);

// out[:, n] += (1 - w[n])·frames[:, i[n]] + w[n]·frames[:, i[n] + 1].
void add_interpolated_columns(DeviceView frames, const DeviceArray<std::int32_t>& index,
                              const DeviceArray<float>& weight, DeviceView out);

// out[:, n] = table[:, ids[n]].
void embedding_lookup(DeviceView table, const DeviceArray<std::int32_t>& ids, DeviceView out);

// The adjoints of the two gathers above scatter: many columns add into one frame or one table
// column. Atomic adds would make the sums' order, and so their last bits, change from run to run;
// a ScatterPlan instead lists, for every target column, its source columns and coefficients in a
// fixed order (built on the host from the batch's index vectors, once per batch), and scatter_add
// sums them in that order, one thread per target element: the GPU's gradients repeat bit for bit.
class ScatterPlan {
 public:
  // The adjoint of add_interpolated_columns over `frames` target columns: frame f receives
  // (1 - w[n])·d_out[:, n] for every n with i[n] = f and w[n]·d_out[:, n] for every n with
  // i[n] + 1 = f (w[n] ≠ 0), in increasing n.
  void assign_interpolation(const std::vector<std::int32_t>& index,
                            const std::vector<float>& weight, int frames);
  // The adjoint of embedding_lookup over `classes` target columns: column a receives d_out[:, n]
  // for every n with ids[n] = a, in increasing n. sort_embedding() is the host's part alone (no
  // CUDA call, so another thread may run it), upload_sorted() the rest.
  void assign_embedding(const std::vector<std::int32_t>& ids, int classes);
  void sort_embedding(const std::vector<std::int32_t>& ids, int classes);
  void upload_sorted();

  // Lists longer than this are summed in chunks of it (below).
  static constexpr int kChunk = 64;

  int targets() const { return targets_; }
  int sources() const { return sources_; }  // columns of d_out the plan reads
  const DeviceArray<std::int32_t>& offsets() const { return offsets_; }  // targets + 1
  const DeviceArray<std::int32_t>& columns() const { return columns_; }
  const DeviceArray<float>& coefficients() const { return coefficients_; }
  // A target's list may be long (an embedding's silence class gathers a large share of a batch's
  // columns), and one thread summing it alone would hold up the whole pass. When any list is
  // longer than kChunk, the lists are cut into consecutive chunks of at most kChunk entries:
  // chunk c is entries [chunk_first[c], chunk_first[c + 1]), target t owns chunks
  // [target_chunks[t], target_chunks[t + 1]). Each chunk is summed by its own thread and each
  // target sums its chunks' partial sums in order: the same bits on every run, and for a list of
  // one chunk the bits of the plain sum.
  bool chunked() const { return chunked_; }
  int chunks() const { return chunks_; }
  const DeviceArray<std::int32_t>& chunk_first() const { return chunk_first_; }  // chunks + 1
  const DeviceArray<std::int32_t>& target_chunks() const { return target_chunks_; }

 private:
  // Uploads the host arrays below, filled by the assign functions (a counting sort by target,
  // stable in n).
  void upload(int targets, int sources);
  // The chunks of the host lists (host_offsets_), uploaded when chunked.
  void cut_chunks();
  void upload_chunks();

  int targets_ = 0, sources_ = 0;
  DeviceArray<std::int32_t> offsets_, columns_;
  DeviceArray<float> coefficients_;
  // Host scratch kept from batch to batch: fresh arrays of a few MB per step cost more in page
  // faults than the sort itself.
  std::vector<std::int32_t> host_offsets_, host_next_, host_columns_;
  std::vector<float> host_coefficients_;
  std::vector<std::int32_t> host_chunk_first_, host_target_chunks_;
  DeviceArray<std::int32_t> chunk_first_, target_chunks_;
  bool chunked_ = false;
  int chunks_ = 0;
  bool ones_only_ = false;   // coefficients_ holds only ones (an embedding's plan)
  bool ones_ready_ = false;  // ...and enough of them for the sorted plan
};

// The adjoint of add_interpolated_columns without a plan, for frame positions that never decrease
// (a batch of crops, each at later frames than the one before, as the trainers lay them out):
// frame f's sources are then the columns from first[f - 1] to first[f + 1], where first[f]
// (frames + 1 entries) is the first column at or past frame f. Sums each frame's sources in the
// plan's order, so the result is the plan's to the bit. d_out may be 16-bit.
void interpolation_backward_sorted(DeviceView d_out, const DeviceArray<std::int32_t>& first,
                                   const DeviceArray<float>& weight, DeviceView d_frames);

// d_targets[:, t] += Σ coefficient · d_out[:, column] over the plan's entries for t (by chunks when
// the plan is chunked).
void scatter_add(DeviceView d_out, const ScatterPlan& plan, DeviceView d_targets);

// The mean over columns of -log softmax(logits)[target], and when d_logits has data its gradient
// (softmax - onehot) / columns. Waits for the device (the loss comes back to the host).
double softmax_cross_entropy(DeviceView logits, const DeviceArray<std::int32_t>& targets,
                             DeviceView d_logits);

}  // namespace tts::kernels::cuda
