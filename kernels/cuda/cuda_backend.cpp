// The CUDA backend: each op forwards to the device-resident kernel of the same name
// (kernels/cuda/device_ops.h, acoustic_ops.h). The index objects upload their vectors and, for
// the adjoints that scatter (embedding, interpolation, repeats), build the ScatterPlan that sums
// each target's sources in a fixed order, so a pass on this backend repeats bit for bit.
#include "cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <future>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "acoustic_ops.h"
#include "cuda_check.h"
#include "device_ops.h"
#include "device_query.h"

namespace tts::kernels::cuda {

namespace {

// Only the backward pass reads an embedding's plan: it is sorted on a worker thread while the
// device runs the forward pass, and uploaded where the backward pass first asks for it.
struct CudaIndices final : Indices {
  using Indices::Indices;
  ~CudaIndices() override {
    if (sorting.valid()) sorting.wait();
  }
  void assign(const std::vector<std::int32_t>& v, int scatter_range) override {
    if (sorting.valid()) sorting.wait();  // the last batch's plan, never used
    ids.upload(v);
    scatters = scatter_range > 0;
    if (!scatters) return;
    host_ids = v;
    sorting = std::async(std::launch::async,
                         [this, scatter_range] { plan.sort_embedding(host_ids, scatter_range); });
  }
  const ScatterPlan& sorted_plan() const {
    if (sorting.valid()) {
      sorting.get();  // rethrows what the sort threw
      plan.upload_sorted();
    }
    return plan;
  }
  DeviceArray<std::int32_t> ids;
  bool scatters = false;
  std::vector<std::int32_t> host_ids;  // the sort's copy, kept between batches
  mutable ScatterPlan plan;
  mutable std::future<void> sorting;
};

struct CudaInterpolation final : Interpolation {
  using Interpolation::Interpolation;
  void assign(const std::vector<std::int32_t>& i, const std::vector<float>& w,
              int frames) override {
    index.upload(i);
    weight.upload(w);
    frame_count = frames;
    // Frame positions that never decrease (every batch the trainers lay out) need no plan: the
    // backward pass finds each frame's columns from `first`. Others get the plan.
    sorted = i.size() == w.size() && std::is_sorted(i.begin(), i.end());
    if (!sorted) {
      plan.assign_interpolation(i, w, frames);
      return;
    }
    host_first.resize(static_cast<std::size_t>(frames) + 1);
    std::size_t n = 0;
    for (int f = 0; f <= frames; ++f) {
      while (n < i.size() && i[n] < f) ++n;
      host_first[static_cast<std::size_t>(f)] = static_cast<std::int32_t>(n);
    }
    for (std::size_t k = 0; k < i.size(); ++k)
      if (i[k] < 0 || i[k] + (w[k] != 0.0f ? 1 : 0) >= frames)
        throw std::invalid_argument(
            "cuda::add_interpolated_columns: frame position outside the "
            "frames");
    first.upload(host_first);
  }
  DeviceArray<std::int32_t> index;
  DeviceArray<float> weight;
  ScatterPlan plan;  // unsorted positions only
  bool sorted = false;
  int frame_count = 0;
  std::vector<std::int32_t> host_first;  // kept between batches: no page faults per step
  DeviceArray<std::int32_t> first;       // sorted positions: first column at or past each frame
};

struct CudaLengths final : Lengths {
  using Lengths::Lengths;
  void assign(const std::vector<int>& lengths) override { columns = PackedColumns(lengths); }
  PackedColumns columns;
};

// repeat_columns is a gather by each output column's owner, its adjoint the owners' scatter.
struct CudaRepeats final : Repeats {
  using Repeats::Repeats;
  void assign(const std::vector<int>& durations) override {
    std::vector<std::int32_t> owner;
    for (std::size_t p = 0; p < durations.size(); ++p) {
      if (durations[p] < 0) throw std::invalid_argument("cuda::repeat_columns: negative duration");
      owner.insert(owner.end(), durations[p], static_cast<std::int32_t>(p));
    }
    owners.upload(owner);
    plan.assign_embedding(owner, static_cast<int>(durations.size()));
  }
  DeviceArray<std::int32_t> owners;
  ScatterPlan plan;
};

// The ops that take only fp32 views check them here (the 16-bit ones check their own formats in
// device_ops.cpp and wavenet_ops.cpp).
View f32(View v, const char* op) {
  if (!v.is_float32())
    throw std::invalid_argument(std::string("cuda::") + op + ": this operand must be fp32");
  return v;
}

// An inv_std of N values as the 1 × N view the device kernels take.
View as_row(View v) {
  if (v.cols == 1) return {v.data, 1, v.rows, 1};
  return v;
}

// Pairs of CUDA events around the marked work (Backend::begin_busy), reused from step to step.
class BusyTimer {
 public:
  BusyTimer() = default;
  BusyTimer(const BusyTimer&) = delete;
  BusyTimer& operator=(const BusyTimer&) = delete;
  ~BusyTimer() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);  // at exit: errors are not actionable
  }
  // A begin while a pair is open (its work threw before the end) starts that pair again; an end
  // without a begin is ignored. Many pairs (a long logging interval) are folded into the sum at a
  // begin, when the device has finished them (a step ends by downloading its gradients).
  void begin() {
    if (used_ % 2 == 1) --used_;
    if (used_ >= 512) fold();
    record();
  }
  void end() {
    if (used_ % 2 == 1) record();
  }
  double take() {
    fold();
    const double seconds = folded_;
    folded_ = 0.0;
    return seconds;
  }

 private:
  void record() {
    if (used_ == events_.size()) {
      cudaEvent_t e = nullptr;
      TTS_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    TTS_CUDA_CHECK(cudaEventRecord(events_[used_++], nullptr));
  }
  void fold() {
    const std::size_t pairs = used_ / 2;
    if (pairs > 0) TTS_CUDA_CHECK(cudaEventSynchronize(events_[2 * pairs - 1]));
    for (std::size_t k = 0; k < pairs; ++k) {
      float ms = 0.0f;
      TTS_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[2 * k], events_[2 * k + 1]));
      folded_ += ms / 1000.0;
    }
    if (used_ % 2 == 1) std::swap(events_[0], events_[used_ - 1]);  // an open pair stays open
    used_ %= 2;
  }

  std::vector<cudaEvent_t> events_;
  std::size_t used_ = 0;
  double folded_ = 0.0;
};

class CudaBackend final : public Backend {
 public:
  const char* name() const override { return "cuda"; }
  std::string describe() const override { return "cuda: " + describe_current_device(); }
  bool host_resident() const override { return false; }

  void begin_busy() override { busy_.begin(); }
  void end_busy() override { busy_.end(); }
  double busy_seconds() override { return busy_.take(); }
  std::int64_t device_memory_in_use() override {
    std::size_t free = 0, total = 0;
    TTS_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return static_cast<std::int64_t>(total - free);
  }

  float* allocate(std::size_t count) override {
    void* p = nullptr;
    TTS_CUDA_CHECK(cudaMalloc(&p, count * sizeof(float)));
    return static_cast<float*>(p);
  }
  void deallocate(float* data) noexcept override { cudaFree(data); }
  // A contiguous view (a whole buffer, one flat parameter array) is one plain copy; a slice of a
  // taller matrix is a pitched one.
  void upload(const float* host, View to) override {
    f32(to, "upload");
    if (to.size() == 0) return;
    if (to.contiguous() || to.cols == 1) {
      TTS_CUDA_CHECK(cudaMemcpy(to.data, host, to.size() * sizeof(float), cudaMemcpyHostToDevice));
      return;
    }
    TTS_CUDA_CHECK(cudaMemcpy2D(to.data, to.ld * sizeof(float), host, to.rows * sizeof(float),
                                to.rows * sizeof(float), to.cols, cudaMemcpyHostToDevice));
  }
  void download(View from, float* host) override {
    f32(from, "download");
    if (from.size() == 0) return;
    if (from.contiguous() || from.cols == 1) {
      TTS_CUDA_CHECK(
          cudaMemcpy(host, from.data, from.size() * sizeof(float), cudaMemcpyDeviceToHost));
      return;
    }
    TTS_CUDA_CHECK(cudaMemcpy2D(host, from.rows * sizeof(float), from.data, from.ld * sizeof(float),
                                from.rows * sizeof(float), from.cols, cudaMemcpyDeviceToHost));
  }

  std::unique_ptr<Indices> make_indices() override { return std::make_unique<CudaIndices>(*this); }
  std::unique_ptr<Interpolation> make_interpolation() override {
    return std::make_unique<CudaInterpolation>(*this);
  }
  std::unique_ptr<Lengths> make_lengths() override { return std::make_unique<CudaLengths>(*this); }
  std::unique_ptr<Repeats> make_repeats() override { return std::make_unique<CudaRepeats>(*this); }

  void set_zero(View x) override {
    f32(x, "set_zero");
    if (x.size() == 0) return;
    if (x.contiguous() || x.cols == 1) {
      TTS_CUDA_CHECK(cudaMemsetAsync(x.data, 0, x.size() * sizeof(float)));
      return;
    }
    TTS_CUDA_CHECK(
        cudaMemset2DAsync(x.data, x.ld * sizeof(float), 0, x.rows * sizeof(float), x.cols));
  }
  void copy(View from, View to) override { cuda::copy(from, to); }
  void add(View x, View y) override { cuda::add(f32(x, "add"), f32(y, "add")); }
  void scale(View x, float factor) override { cuda::scale(x, factor); }
  void multiply(View a, View b, View out) override {
    cuda::multiply(f32(a, "multiply"), f32(b, "multiply"), f32(out, "multiply"));
  }

  void gemm(View c, View a, Transpose ta, View b, Transpose tb, float alpha, float beta,
            GemmPrecision precision) override {
    cuda::gemm(c, a, ta, b, tb, alpha, beta, precision);
  }
  void add_bias(View x, View bias) override {
    cuda::add_bias(f32(x, "add_bias"), f32(bias, "add_bias"));
  }
  void accumulate_row_sums(View out, View x) override { cuda::accumulate_row_sums(out, x); }

  void relu_forward(View x, View y) override {
    cuda::relu_forward(f32(x, "relu_forward"), f32(y, "relu_forward"));
  }
  void relu_backward(View dy, View y, View dx) override { cuda::relu_backward(dy, y, dx); }
  void gate_forward(View z, View gated, View tanh_out, View sigmoid_out) override {
    const char* op = "gate_forward";
    cuda::gate_forward(f32(z, op), f32(gated, op), f32(tanh_out, op), f32(sigmoid_out, op));
  }
  void gate_backward(View d_gated, View tanh_out, View sigmoid_out, View dz) override {
    cuda::gate_backward(d_gated, tanh_out, sigmoid_out, dz);
  }

  void wavenet_layer_input(View h, View bias, int shift, int segments, View h_out,
                           View stacked) override {
    cuda::wavenet_layer_input(h, bias, shift, segments, h_out, stacked);
  }
  void wavenet_layer_input_backward(View d_in, int shift, int segments, View d_h,
                                    View rounded) override {
    cuda::wavenet_layer_input_backward(d_in, shift, segments, d_h, rounded);
  }
  void conditioned_gate_forward(View z, View frames, const Interpolation& at, View gated,
                                View tanh_out, View sigmoid_out) override {
    const auto& p = mine<CudaInterpolation>(at, "conditioned_gate_forward");
    cuda::conditioned_gate_forward(z, frames, p.index, p.weight, gated, tanh_out, sigmoid_out);
  }
  void conditioned_gate_backward(View d_gated, View tanh_out, View sigmoid_out,
                                 const Interpolation& at, View dz, View d_frames) override {
    const auto& p = mine<CudaInterpolation>(at, "conditioned_gate_backward");
    if (!p.sorted) {  // the plan's scatter after the gate's adjoint
      Backend::conditioned_gate_backward(d_gated, tanh_out, sigmoid_out, at, dz, d_frames);
      return;
    }
    if (d_frames.cols != p.frame_count)
      throw std::invalid_argument(
          "cuda::conditioned_gate_backward: d_frames has the wrong number of frames");
    cuda::conditioned_gate_backward_sorted(d_gated, tanh_out, sigmoid_out, p.first, p.weight, dz,
                                           d_frames);
  }
  void bias_relu_forward(View x, View bias, View y) override {
    cuda::bias_relu_forward(x, bias, y);
  }

  void causal_shift(View x, int shift, int segments, View out) override {
    cuda::causal_shift(f32(x, "causal_shift"), shift, segments, f32(out, "causal_shift"));
  }
  void causal_shift_backward(View d_out, int shift, int segments, View dx) override {
    const char* op = "causal_shift_backward";
    cuda::causal_shift_backward(f32(d_out, op), shift, segments, f32(dx, op));
  }
  void add_interpolated_columns(View frames, const Interpolation& at, View out) override {
    const auto& p = mine<CudaInterpolation>(at, "add_interpolated_columns");
    cuda::add_interpolated_columns(f32(frames, "add_interpolated_columns"), p.index, p.weight,
                                   f32(out, "add_interpolated_columns"));
  }
  void add_interpolated_columns_backward(View d_out, const Interpolation& at,
                                         View d_frames) override {
    const auto& p = mine<CudaInterpolation>(at, "add_interpolated_columns_backward");
    if (p.sorted) {
      if (d_frames.cols != p.frame_count)
        throw std::invalid_argument(
            "cuda::add_interpolated_columns_backward: d_frames has the wrong number of frames");
      cuda::interpolation_backward_sorted(d_out, p.first, p.weight, d_frames);
    } else {
      cuda::scatter_add(d_out, p.plan, d_frames);
    }
  }
  void embedding_lookup(View table, const Indices& ids, View out) override {
    cuda::embedding_lookup(f32(table, "embedding_lookup"),
                           mine<CudaIndices>(ids, "embedding_lookup").ids,
                           f32(out, "embedding_lookup"));
  }
  void embedding_backward(View d_out, const Indices& ids, View d_table) override {
    const auto& i = mine<CudaIndices>(ids, "embedding_backward");
    if (!i.scatters)
      throw std::invalid_argument(
          "cuda::embedding_backward: the ids were assigned without a range");
    cuda::scatter_add(f32(d_out, "embedding_backward"), i.sorted_plan(), d_table);
  }
  void repeat_columns(View x, const Repeats& d, View out) override {
    cuda::embedding_lookup(f32(x, "repeat_columns"), mine<CudaRepeats>(d, "repeat_columns").owners,
                           f32(out, "repeat_columns"));
  }
  void repeat_columns_backward(View d_out, const Repeats& d, View dx) override {
    cuda::scatter_add(f32(d_out, "repeat_columns_backward"),
                      mine<CudaRepeats>(d, "repeat_columns_backward").plan, dx);
  }

  void conv1d_unfold(View x, int kernel_size, const Lengths& l, View unfolded) override {
    cuda::conv1d_unfold(f32(x, "conv1d_unfold"), kernel_size,
                        mine<CudaLengths>(l, "conv1d_unfold").columns,
                        f32(unfolded, "conv1d_unfold"));
  }
  void conv1d_unfold_backward(View d_unfolded, int kernel_size, const Lengths& l,
                              View dx) override {
    cuda::conv1d_unfold_backward(f32(d_unfolded, "conv1d_unfold_backward"), kernel_size,
                                 mine<CudaLengths>(l, "conv1d_unfold_backward").columns, dx);
  }
  void layer_norm_forward(View x, View gamma, View beta, float epsilon, View normalized,
                          View inv_std, View y) override {
    cuda::layer_norm_forward(f32(x, "layer_norm_forward"), gamma, beta, epsilon, normalized,
                             as_row(inv_std), f32(y, "layer_norm_forward"));
  }
  void layer_norm_backward(View dy, View normalized, View inv_std, View gamma, View dx,
                           View d_gamma, View d_beta) override {
    cuda::layer_norm_backward(f32(dy, "layer_norm_backward"), normalized, as_row(inv_std), gamma,
                              f32(dx, "layer_norm_backward"), d_gamma, d_beta);
  }
  void dropout_mask(float rate, std::uint64_t seed, View keep) override {
    cuda::dropout_mask(rate, seed, f32(keep, "dropout_mask"));
  }

  double softmax_cross_entropy(View logits, const Indices& targets, View d_logits) override {
    return cuda::softmax_cross_entropy(
        logits, mine<CudaIndices>(targets, "softmax_cross_entropy").ids, d_logits);
  }
  double mse_loss(View prediction, View target, View d_prediction, float scale) override {
    const char* op = "mse_loss";
    return cuda::mse_loss(f32(prediction, op), f32(target, op), f32(d_prediction, op), scale);
  }
  double l1_loss(View prediction, View target, View d_prediction, float scale) override {
    const char* op = "l1_loss";
    return cuda::l1_loss(f32(prediction, op), f32(target, op), f32(d_prediction, op), scale);
  }

 private:
  BusyTimer busy_;
};

}  // namespace

Backend& backend() {
  static CudaBackend instance;
  return instance;
}

}  // namespace tts::kernels::cuda
