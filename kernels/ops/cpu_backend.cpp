// The CPU backend: each op maps its views onto Eigen (a strided Map, which the kernels' Ref
// parameters take without a copy) and calls the CPU kernel of the same name, so a pass on this
// backend computes exactly what it computed when it called the kernels itself.
#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "tts/kernels/activations.h"
#include "tts/kernels/alignment.h"
#include "tts/kernels/conv1d.h"
#include "tts/kernels/dropout.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/losses.h"
#include "tts/kernels/normalization.h"
#include "tts/kernels/ops/backends.h"
#include "tts/kernels/sequence.h"
#include "tts/kernels/softmax.h"

namespace tts::kernels {

namespace {

using StridedMap = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;

// The CPU computes in fp32 only: a 16-bit view here is a pass that asked for bf16 or fp16 GEMMs on
// a backend that has none.
void require_float32(View v) {
  if (!v.is_float32())
    throw std::invalid_argument("cpu: 16-bit operands need a backend with bf16/fp16 GEMMs (CUDA)");
}

MatrixRef ref(View v) {
  require_float32(v);
  StridedMap map(v.data, v.rows, v.cols, Eigen::OuterStride<>(std::max(v.ld, 1)));
  return MatrixRef(map);
}

// A view with one row or one column as an Eigen vector; its elements must be adjacent.
Eigen::Map<Vector> vec(View v, const char* op) {
  require_float32(v);
  if (v.cols > 1 && !(v.rows == 1 && v.ld == 1))
    throw std::invalid_argument(std::string("cpu::") + op + ": a vector view must be n × 1 or a " +
                                "contiguous 1 × n");
  return Eigen::Map<Vector>(v.data, static_cast<Eigen::Index>(v.size()));
}

struct CpuIndices final : Indices {
  using Indices::Indices;
  void assign(const std::vector<std::int32_t>& v, int) override { ids = v; }
  std::vector<std::int32_t> ids;
};

struct CpuInterpolation final : Interpolation {
  using Interpolation::Interpolation;
  void assign(const std::vector<std::int32_t>& i, const std::vector<float>& w, int) override {
    index = i;
    weight = w;
  }
  std::vector<std::int32_t> index;
  std::vector<float> weight;
};

struct CpuLengths final : Lengths {
  using Lengths::Lengths;
  void assign(const std::vector<int>& v) override { lengths = v; }
  std::vector<int> lengths;
};

struct CpuRepeats final : Repeats {
  using Repeats::Repeats;
  void assign(const std::vector<int>& v) override { durations = v; }
  std::vector<int> durations;
};

class CpuBackend final : public Backend {
 public:
  const char* name() const override { return "cpu"; }
  std::string describe() const override { return "cpu"; }
  bool host_resident() const override { return true; }

  // 64-byte aligned, as Eigen's own allocations are at most, so that a Buffer's data is as aligned
  // as the Eigen matrix it replaces.
  float* allocate(std::size_t count) override {
    const std::size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<float*>(p);
  }
  void deallocate(float* data) noexcept override { std::free(data); }
  void upload(const float* host, View to) override {
    ref(to) = ConstMatrixMap(host, to.rows, to.cols);
  }
  void download(View from, float* host) override {
    MatrixMap(host, from.rows, from.cols) = ref(from);
  }

  std::unique_ptr<Indices> make_indices() override { return std::make_unique<CpuIndices>(*this); }
  std::unique_ptr<Interpolation> make_interpolation() override {
    return std::make_unique<CpuInterpolation>(*this);
  }
  std::unique_ptr<Lengths> make_lengths() override { return std::make_unique<CpuLengths>(*this); }
  std::unique_ptr<Repeats> make_repeats() override { return std::make_unique<CpuRepeats>(*this); }

  void set_zero(View x) override { ref(x).setZero(); }
  void copy(View from, View to) override {
    same_shape(from, to, "copy");
    ref(to) = ref(from);
  }
  void add(View x, View y) override {
    same_shape(x, y, "add");
    ref(y) += ref(x);
  }
  void scale(View x, float factor) override { ref(x) *= factor; }
  void multiply(View a, View b, View out) override {
    same_shape(a, b, "multiply");
    same_shape(a, out, "multiply");
    ref(out) = ref(a).cwiseProduct(ref(b));
  }

  void gemm(View c, View a, Transpose ta, View b, Transpose tb, float alpha, float beta,
            GemmPrecision precision) override {
    if (precision != GemmPrecision::kFp32)
      throw std::invalid_argument("cpu::gemm: the CPU backend computes GEMMs in fp32 only");
    kernels::gemm(ref(c), ref(a), ta, ref(b), tb, alpha, beta);
  }
  void add_bias(View x, View bias) override {
    if (bias.rows != x.rows || bias.cols != 1)
      throw std::invalid_argument("cpu::add_bias: bias must be rows × 1");
    kernels::add_bias(ref(x), vec(bias, "add_bias"));
  }
  void accumulate_row_sums(View out, View x) override {
    if (out.rows != x.rows || out.cols != 1)
      throw std::invalid_argument("cpu::accumulate_row_sums: out must be rows × 1");
    kernels::accumulate_row_sums(vec(out, "accumulate_row_sums"), ref(x));
  }

  void relu_forward(View x, View y) override {
    same_shape(x, y, "relu_forward");
    kernels::relu_forward(ref(x), ref(y));
  }
  void relu_backward(View dy, View y, View dx) override {
    same_shape(dy, y, "relu_backward");
    same_shape(dy, dx, "relu_backward");
    kernels::relu_backward(ref(dy), ref(y), ref(dx));
  }
  void gate_forward(View z, View gated, View tanh_out, View sigmoid_out) override {
    const int r = z.rows / 2;
    if (gated.rows != r || gated.cols != z.cols || tanh_out.rows != r || tanh_out.cols != z.cols ||
        sigmoid_out.rows != r || sigmoid_out.cols != z.cols)
      throw std::invalid_argument("cpu::gate_forward: shapes do not agree");
    kernels::gate_forward(ref(z), ref(gated), ref(tanh_out), ref(sigmoid_out));
  }
  void gate_backward(View d_gated, View tanh_out, View sigmoid_out, View dz) override {
    same_shape(d_gated, tanh_out, "gate_backward");
    same_shape(d_gated, sigmoid_out, "gate_backward");
    if (dz.rows != 2 * d_gated.rows || dz.cols != d_gated.cols)
      throw std::invalid_argument("cpu::gate_backward: dz must be 2R × N");
    kernels::gate_backward(ref(d_gated), ref(tanh_out), ref(sigmoid_out), ref(dz));
  }

  void causal_shift(View x, int shift, int segments, View out) override {
    same_shape(x, out, "causal_shift");
    kernels::causal_shift(ref(x), shift, segments, ref(out));
  }
  void causal_shift_backward(View d_out, int shift, int segments, View dx) override {
    same_shape(d_out, dx, "causal_shift_backward");
    kernels::causal_shift_backward(ref(d_out), shift, segments, ref(dx));
  }
  void add_interpolated_columns(View frames, const Interpolation& at, View out) override {
    const auto& p = mine<CpuInterpolation>(at, "add_interpolated_columns");
    require(frames.rows == out.rows && p.index.size() == static_cast<std::size_t>(out.cols),
            "add_interpolated_columns", "shapes do not agree");
    kernels::add_interpolated_columns(ref(frames), p.index, p.weight, ref(out));
  }
  void add_interpolated_columns_backward(View d_out, const Interpolation& at,
                                         View d_frames) override {
    const auto& p = mine<CpuInterpolation>(at, "add_interpolated_columns_backward");
    require(d_frames.rows == d_out.rows && p.index.size() == static_cast<std::size_t>(d_out.cols),
            "add_interpolated_columns_backward", "shapes do not agree");
    kernels::add_interpolated_columns_backward(ref(d_out), p.index, p.weight, ref(d_frames));
  }
  void embedding_lookup(View table, const Indices& ids, View out) override {
    const auto& i = mine<CpuIndices>(ids, "embedding_lookup");
    require(table.rows == out.rows && i.ids.size() == static_cast<std::size_t>(out.cols),
            "embedding_lookup", "shapes do not agree");
    kernels::embedding_lookup(ref(table), i.ids, ref(out));
  }
  void embedding_backward(View d_out, const Indices& ids, View d_table) override {
    const auto& i = mine<CpuIndices>(ids, "embedding_backward");
    require(d_table.rows == d_out.rows && i.ids.size() == static_cast<std::size_t>(d_out.cols),
            "embedding_backward", "shapes do not agree");
    kernels::embedding_backward(ref(d_out), i.ids, ref(d_table));
  }
  void repeat_columns(View x, const Repeats& d, View out) override {
    kernels::repeat_columns(ref(x), mine<CpuRepeats>(d, "repeat_columns").durations, ref(out));
  }
  void repeat_columns_backward(View d_out, const Repeats& d, View dx) override {
    kernels::repeat_columns_backward(
        ref(d_out), mine<CpuRepeats>(d, "repeat_columns_backward").durations, ref(dx));
  }

  void conv1d_unfold(View x, int kernel_size, const Lengths& l, View unfolded) override {
    kernels::conv1d_unfold(ref(x), kernel_size, mine<CpuLengths>(l, "conv1d_unfold").lengths,
                           ref(unfolded));
  }
  void conv1d_unfold_backward(View d_unfolded, int kernel_size, const Lengths& l,
                              View dx) override {
    kernels::conv1d_unfold_backward(ref(d_unfolded), kernel_size,
                                    mine<CpuLengths>(l, "conv1d_unfold_backward").lengths, ref(dx));
  }
  void layer_norm_forward(View x, View gamma, View beta, float epsilon, View normalized,
                          View inv_std, View y) override {
    kernels::layer_norm_forward(ref(x), vec(gamma, "layer_norm_forward"),
                                vec(beta, "layer_norm_forward"), epsilon, ref(normalized),
                                vec(inv_std, "layer_norm_forward"), ref(y));
  }
  void layer_norm_backward(View dy, View normalized, View inv_std, View gamma, View dx,
                           View d_gamma, View d_beta) override {
    kernels::layer_norm_backward(ref(dy), ref(normalized), vec(inv_std, "layer_norm_backward"),
                                 vec(gamma, "layer_norm_backward"), ref(dx),
                                 vec(d_gamma, "layer_norm_backward"),
                                 vec(d_beta, "layer_norm_backward"));
  }
  void dropout_mask(float rate, std::uint64_t seed, View keep) override {
    kernels::dropout_mask(rate, seed, ref(keep));
  }

  double softmax_cross_entropy(View logits, const Indices& targets, View d_logits) override {
    return kernels::softmax_cross_entropy(
        ref(logits), mine<CpuIndices>(targets, "softmax_cross_entropy").ids, ref(d_logits));
  }
  double mse_loss(View prediction, View target, View d_prediction, float scale) override {
    return kernels::mse_loss(ref(prediction), ref(target), ref(d_prediction), scale);
  }
  double l1_loss(View prediction, View target, View d_prediction, float scale) override {
    return kernels::l1_loss(ref(prediction), ref(target), ref(d_prediction), scale);
  }

 private:
  // The CPU kernels assert their shapes only in debug builds; the interface promises an exception.
  static void require(bool ok, const char* op, const char* why) {
    if (!ok) throw std::invalid_argument(std::string("cpu::") + op + ": " + why);
  }
  static void same_shape(View a, View b, const char* op) {
    require(a.rows == b.rows && a.cols == b.cols, op, "shapes do not agree");
  }
};

}  // namespace

Backend& cpu_backend() {
  static CpuBackend backend;
  return backend;
}

}  // namespace tts::kernels
