// Host side of the device-resident kernels (tts/kernels/cuda/device_ops.h): shape checks, then a
// launch on the default stream. The GEMMs go through cuBLAS (blas.h); the rest are our kernels
// (training_kernels.cu, elementwise.cu, softmax.cu).
#include "tts/kernels/cuda/device_ops.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas.h"
#include "cuda_check.h"
#include "launchers.h"

namespace tts::kernels::cuda {

namespace {

void require(bool ok, const char* operation, const char* why) {
  if (!ok) throw std::invalid_argument(std::string("cuda::") + operation + ": " + why);
}

void require_same_shape(const DeviceView& a, const DeviceView& b, const char* operation) {
  require(a.rows == b.rows && a.cols == b.cols, operation, "shapes do not agree");
}

// Scratch for one GEMM operand rounded to bf16 or fp16 (`precision`): one per operand and host
// thread, grown as needed.
std::uint16_t* half_copy(const DeviceView& v, int which, GemmPrecision precision) {
  thread_local DeviceArray<std::int32_t> scratch[2];  // int32 storage: 2 halves per element
  DeviceArray<std::int32_t>& buffer = scratch[which];
  const std::size_t halves = v.size();
  if (buffer.size() * 2 < halves) buffer.resize((halves + 1) / 2);
  auto* out = reinterpret_cast<std::uint16_t*>(buffer.data());
  if (precision == GemmPrecision::kFp16)
    detail::launch_float_to_fp16(v.data, v.rows, v.cols, v.ld, out, nullptr);
  else
    detail::launch_float_to_bf16(v.data, v.rows, v.cols, v.ld, out, nullptr);
  return out;
}

// The cuBLAS operand of a GEMM in `precision`: a 16-bit view in that precision's format as it is,
// an fp32 one rounded into scratch (contiguous), or an fp32 one as it is for an fp32 GEMM.
const void* gemm_operand(const DeviceView& v, int which, GemmPrecision precision, int* ld) {
  if (v.is_float32()) {
    if (precision == GemmPrecision::kFp32) {
      *ld = v.ld;
      return v.data;
    }
    *ld = v.rows;
    return half_copy(v, which, precision);
  }
  require(v.element == operand_element(precision), "gemm",
          "a 16-bit operand must be in the GEMM's precision");
  *ld = v.ld;
  return v.data;
}

}  // namespace

void gemm(DeviceView c, DeviceView a, Transpose transpose_a, DeviceView b, Transpose transpose_b,
          float alpha, float beta, GemmPrecision precision) {
  const bool ta = transpose_a == Transpose::kYes, tb = transpose_b == Transpose::kYes;
  const int m = ta ? a.cols : a.rows, k = ta ? a.rows : a.cols;
  const int n = tb ? b.rows : b.cols, kb = tb ? b.cols : b.rows;
  require(k == kb && c.rows == m && c.cols == n, "gemm", "shapes do not agree");
  require(c.is_float32(), "gemm", "the product is fp32");
  if (m == 0 || n == 0) return;
  if (k == 0) {               // as the CPU: only the scaling of C
    const float zero = 0.0f;  // C = beta·C + 0·C, in place
    TTS_CUBLAS_CHECK(cublasSgeam(detail::blas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, &beta,
                                 c.data, c.ld, &zero, c.data, c.ld, c.data, c.ld));
    return;
  }
  int lda = 0, ldb = 0;
  const void* a_operand = gemm_operand(a, 0, precision, &lda);
  const void* b_operand = gemm_operand(b, 1, precision, &ldb);
  detail::device_gemm(m, n, k, transpose_a, transpose_b, alpha, a_operand, lda, b_operand, ldb,
                      beta, c.data, c.ld, precision);
}

void scale(DeviceView x, float factor) {
  if (x.rows == 0 || x.cols == 0) return;
  if (!x.is_float32()) {
    detail::launch_scale(x.data, x.ld, x.rows, x.cols, factor, x.element, nullptr);
    return;
  }
  const float zero = 0.0f;
  TTS_CUBLAS_CHECK(cublasSgeam(detail::blas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, x.rows, x.cols,
                               &factor, x.data, x.ld, &zero, x.data, x.ld, x.data, x.ld));
}

void add_bias(DeviceView x, DeviceView bias) {
  require(bias.rows == x.rows && bias.cols == 1, "add_bias", "bias must be rows × 1");
  detail::launch_add_bias(x.data, x.rows, x.cols, x.ld, bias.data, nullptr);
}

void accumulate_row_sums(DeviceView out, DeviceView x) {
  require(out.rows == x.rows && out.cols == 1, "accumulate_row_sums", "out must be rows × 1");
  require(out.is_float32(), "accumulate_row_sums", "out is fp32");
  if (x.rows == 0 || x.cols == 0) return;
  if (!x.is_float32()) {  // x · 1 as a GEMM in x's format, fp32 accumulation (deterministic)
    const GemmPrecision precision =
        x.element == Element::kBfloat16 ? GemmPrecision::kBf16 : GemmPrecision::kFp16;
    thread_local DeviceArray<std::int32_t> ones[2];  // int32 storage: 2 halves per element
    DeviceArray<std::int32_t>& o = ones[precision == GemmPrecision::kBf16 ? 0 : 1];
    const std::size_t pairs = (static_cast<std::size_t>(x.cols) + 1) / 2;
    if (o.size() < pairs) {
      // 1.0 is 0x3F80 in bf16 and 0x3C00 in IEEE half; two per int32.
      const std::uint32_t one = precision == GemmPrecision::kBf16 ? 0x3F80u : 0x3C00u;
      const std::vector<std::int32_t> host(pairs, static_cast<std::int32_t>(one | (one << 16)));
      o.resize(pairs);
      o.upload(host.data(), host.size());
    }
    detail::device_gemm(x.rows, 1, x.cols, Transpose::kNo, Transpose::kNo, 1.0f, x.data, x.ld,
                        o.data(), x.cols, 1.0f, out.data, out.rows, precision);
    return;
  }
  // out += x · 1 through cuBLAS's matrix-vector product: deterministic, and as fast as the memory.
  thread_local DeviceArray<float> ones;
  if (ones.size() < static_cast<std::size_t>(x.cols)) {
    ones.resize(x.cols);
    const std::vector<float> host(x.cols, 1.0f);
    ones.upload(host.data(), host.size());
  }
  const float one = 1.0f;
  TTS_CUBLAS_CHECK(cublasSgemv(detail::blas_handle(), CUBLAS_OP_N, x.rows, x.cols, &one, x.data,
                               x.ld, ones.data(), 1, &one, out.data, 1));
}

void relu_forward(DeviceView x, DeviceView y) {
  require_same_shape(x, y, "relu_forward");
  detail::launch_relu_forward(x.data, x.ld, x.rows, x.cols, y.data, y.ld, nullptr);
}

void relu_backward(DeviceView dy, DeviceView y, DeviceView dx) {
  require_same_shape(dy, y, "relu_backward");
  require_same_shape(dy, dx, "relu_backward");
  require(dy.is_float32() && y.element == dx.element, "relu_backward",
          "dy is fp32, y and dx of one format");
  detail::launch_relu_backward(dy.data, dy.ld, y.data, y.ld, dy.rows, dy.cols, dx.data, dx.ld,
                               dx.element, nullptr);
}

void gate_forward(DeviceView z, DeviceView gated, DeviceView tanh_out, DeviceView sigmoid_out) {
  const int r = gated.rows;
  require(z.rows == 2 * r && z.cols == gated.cols, "gate_forward", "z must be 2R × columns");
  require(tanh_out.rows == r && tanh_out.cols == z.cols && tanh_out.contiguous() &&
              sigmoid_out.rows == r && sigmoid_out.cols == z.cols && sigmoid_out.contiguous(),
          "gate_forward", "the kept factors must be contiguous R × columns");
  detail::launch_gate_forward(z.data, z.ld, r, z.cols, gated.data, gated.ld, tanh_out.data,
                              sigmoid_out.data, nullptr);
}

void gate_backward(DeviceView d_gated, DeviceView tanh_out, DeviceView sigmoid_out, DeviceView dz) {
  const int r = d_gated.rows;
  require(tanh_out.rows == r && tanh_out.cols == d_gated.cols && tanh_out.contiguous() &&
              sigmoid_out.rows == r && sigmoid_out.cols == d_gated.cols && sigmoid_out.contiguous(),
          "gate_backward", "the kept factors must be contiguous R × columns");
  require(dz.rows == 2 * r && dz.cols == d_gated.cols, "gate_backward", "dz must be 2R × columns");
  require(d_gated.is_float32() && tanh_out.is_float32() && sigmoid_out.is_float32(),
          "gate_backward", "only dz may be 16-bit");
  detail::launch_gate_backward(d_gated.data, d_gated.ld, tanh_out.data, sigmoid_out.data, r,
                               d_gated.cols, dz.data, dz.ld, dz.element, nullptr);
}

void causal_shift(DeviceView x, int shift, int segments, DeviceView out) {
  require_same_shape(x, out, "causal_shift");
  require(segments > 0 && x.cols % segments == 0, "causal_shift",
          "columns do not split into equal segments");
  detail::launch_causal_shift(x.data, x.ld, x.rows, x.cols, shift, x.cols / segments, out.data,
                              out.ld, nullptr);
}

void causal_shift_backward(DeviceView d_out, int shift, int segments, DeviceView dx) {
  require_same_shape(d_out, dx, "causal_shift_backward");
  require(segments > 0 && d_out.cols % segments == 0, "causal_shift_backward",
          "columns do not split into equal segments");
  detail::launch_causal_shift_backward(d_out.data, d_out.ld, d_out.rows, d_out.cols, shift,
                                       d_out.cols / segments, dx.data, dx.ld, nullptr);
}

void add_interpolated_columns(DeviceView frames, const DeviceArray<std::int32_t>& index,
                              const DeviceArray<float>& weight, DeviceView out) {
  require(frames.rows == out.rows && index.size() == static_cast<std::size_t>(out.cols) &&
              weight.size() == index.size(),
          "add_interpolated_columns", "one frame position per output column, same rows");
  detail::launch_add_interpolated_columns(frames.data, frames.ld, index.data(), weight.data(),
                                          out.rows, out.cols, out.data, out.ld, nullptr);
}

void embedding_lookup(DeviceView table, const DeviceArray<std::int32_t>& ids, DeviceView out) {
  require(table.rows == out.rows && ids.size() == static_cast<std::size_t>(out.cols),
          "embedding_lookup", "one id per output column, same rows");
  detail::launch_embedding_lookup(table.data, table.ld, ids.data(), out.rows, out.cols, out.data,
                                  out.ld, nullptr);
}

ScatterPlan ScatterPlan::for_interpolation(const std::vector<std::int32_t>& index,
                                           const std::vector<float>& weight, int frames) {
  require(index.size() == weight.size(), "ScatterPlan::for_interpolation",
          "one weight per frame index");
  std::vector<std::int32_t> target, column;
  std::vector<float> coefficient;
  for (std::size_t n = 0; n < index.size(); ++n) {
    const bool next = weight[n] != 0.0f;
    require(index[n] >= 0 && index[n] + (next ? 1 : 0) < frames, "ScatterPlan::for_interpolation",
            "frame position outside the frames");
    target.push_back(index[n]);
    column.push_back(static_cast<std::int32_t>(n));
    coefficient.push_back(1.0f - weight[n]);
    if (next) {
      target.push_back(index[n] + 1);
      column.push_back(static_cast<std::int32_t>(n));
      coefficient.push_back(weight[n]);
    }
  }
  return build(target, column, coefficient, frames, static_cast<int>(index.size()));
}

ScatterPlan ScatterPlan::for_embedding(const std::vector<std::int32_t>& ids, int classes) {
  std::vector<std::int32_t> column(ids.size());
  for (std::size_t n = 0; n < ids.size(); ++n) {
    require(ids[n] >= 0 && ids[n] < classes, "ScatterPlan::for_embedding", "id out of range");
    column[n] = static_cast<std::int32_t>(n);
  }
  return build(ids, column, std::vector<float>(ids.size(), 1.0f), classes,
               static_cast<int>(ids.size()));
}

ScatterPlan ScatterPlan::build(const std::vector<std::int32_t>& target,
                               const std::vector<std::int32_t>& column,
                               const std::vector<float>& coefficient, int targets, int sources) {
  // A counting sort by target, stable: each target's entries keep the order they were given in.
  std::vector<std::int32_t> offsets(static_cast<std::size_t>(targets) + 1, 0);
  for (std::int32_t t : target) ++offsets[static_cast<std::size_t>(t) + 1];
  for (std::size_t t = 0; t < static_cast<std::size_t>(targets); ++t) offsets[t + 1] += offsets[t];
  std::vector<std::int32_t> next(offsets.begin(), offsets.end() - 1), columns(column.size());
  std::vector<float> coefficients(column.size());
  for (std::size_t i = 0; i < target.size(); ++i) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(target[i])]++);
    columns[at] = column[i];
    coefficients[at] = coefficient[i];
  }
  ScatterPlan plan;
  plan.targets_ = targets;
  plan.sources_ = sources;
  plan.offsets_.upload(offsets);
  plan.columns_.upload(columns);
  plan.coefficients_.upload(coefficients);
  return plan;
}

void scatter_add(DeviceView d_out, const ScatterPlan& plan, DeviceView d_targets) {
  require(d_targets.rows == d_out.rows && d_targets.cols == plan.targets() &&
              d_out.cols == plan.sources(),
          "scatter_add", "the plan's sources and targets must match d_out and d_targets");
  require(d_targets.is_float32(), "scatter_add", "d_targets is fp32");
  detail::launch_scatter_add(d_out.data, d_out.ld, d_out.element, d_out.rows, plan.offsets().data(),
                             plan.columns().data(), plan.coefficients().data(), plan.targets(),
                             d_targets.data, d_targets.ld, nullptr);
}

double softmax_cross_entropy(DeviceView logits, const DeviceArray<std::int32_t>& targets,
                             DeviceView d_logits) {
  require(logits.contiguous() && logits.is_float32(), "softmax_cross_entropy",
          "logits must be contiguous fp32");
  require(targets.size() == static_cast<std::size_t>(logits.cols), "softmax_cross_entropy",
          "one target per column");
  const bool want_gradient = d_logits.data != nullptr;
  if (want_gradient)
    require(d_logits.rows == logits.rows && d_logits.cols == logits.cols && d_logits.contiguous(),
            "softmax_cross_entropy", "the gradient must be contiguous, shaped like the logits");
  if (logits.cols == 0) return std::nan("");  // as the CPU's 0/0
  thread_local DeviceArray<double> losses;
  losses.resize(logits.cols);
  detail::launch_softmax_cross_entropy(logits.data, targets.data(), logits.rows, logits.cols,
                                       losses.data(), want_gradient ? d_logits.data : nullptr,
                                       d_logits.element, nullptr);
  std::vector<double> host(logits.cols);
  losses.download(host.data(), host.size());
  double total = 0.0;
  for (double value : host) total += value;
  return total / static_cast<double>(logits.cols);
}

}  // namespace tts::kernels::cuda
