// Host side of the device-resident kernels (kernels/cuda/device_ops.h): shape checks, then a
// launch on the default stream. The GEMMs go through cuBLAS (blas.h); the rest are our kernels
// (training_kernels.cu, elementwise.cu, softmax.cu).
#include "device_ops.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
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
  const bool c_rounded = !c.is_float32();
  require(!c_rounded || (c.element == operand_element(precision) && beta == 0.0f), "gemm",
          "a 16-bit product must be in the GEMM's precision, with beta 0");
  if (m == 0 || n == 0) return;
  if (k == 0 && c_rounded) {  // beta 0: zeros (0x0000 in both 16-bit formats)
    TTS_CUDA_CHECK(cudaMemset2DAsync(c.data, c.ld * 2, 0, c.rows * 2, c.cols));
    return;
  }
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
                      beta, c.data, c.ld, precision, c_rounded);
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
  require(
      d_gated.is_float32() && tanh_out.element == dz.element && sigmoid_out.element == dz.element,
      "gate_backward", "d_gated is fp32; the kept factors and dz of one format");
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

void ScatterPlan::assign_interpolation(const std::vector<std::int32_t>& index,
                                       const std::vector<float>& weight, int frames) {
  require(index.size() == weight.size(), "ScatterPlan::assign_interpolation",
          "one weight per frame index");
  // Counting sort by target frame: column n adds into index[n] and, when w[n] ≠ 0, index[n] + 1.
  host_offsets_.assign(static_cast<std::size_t>(frames) + 1, 0);
  for (std::size_t n = 0; n < index.size(); ++n) {
    const bool next = weight[n] != 0.0f;
    require(index[n] >= 0 && index[n] + (next ? 1 : 0) < frames,
            "ScatterPlan::assign_interpolation", "frame position outside the frames");
    ++host_offsets_[static_cast<std::size_t>(index[n]) + 1];
    if (next) ++host_offsets_[static_cast<std::size_t>(index[n]) + 2];
  }
  for (std::size_t f = 0; f < static_cast<std::size_t>(frames); ++f)
    host_offsets_[f + 1] += host_offsets_[f];
  const auto entries = static_cast<std::size_t>(host_offsets_.back());
  host_next_.assign(host_offsets_.begin(), host_offsets_.end() - 1);
  host_columns_.resize(entries);
  host_coefficients_.resize(entries);
  for (std::size_t n = 0; n < index.size(); ++n) {  // increasing n: stable within a frame
    auto at = static_cast<std::size_t>(host_next_[static_cast<std::size_t>(index[n])]++);
    host_columns_[at] = static_cast<std::int32_t>(n);
    host_coefficients_[at] = 1.0f - weight[n];
    if (weight[n] != 0.0f) {
      at = static_cast<std::size_t>(host_next_[static_cast<std::size_t>(index[n]) + 1]++);
      host_columns_[at] = static_cast<std::int32_t>(n);
      host_coefficients_[at] = weight[n];
    }
  }
  cut_chunks();
  upload(frames, static_cast<int>(index.size()));
}

void ScatterPlan::assign_embedding(const std::vector<std::int32_t>& ids, int classes) {
  sort_embedding(ids, classes);
  upload_sorted();
}

void ScatterPlan::sort_embedding(const std::vector<std::int32_t>& ids, int classes) {
  host_offsets_.assign(static_cast<std::size_t>(classes) + 1, 0);
  for (std::int32_t id : ids) {
    require(id >= 0 && id < classes, "ScatterPlan::assign_embedding", "id out of range");
    ++host_offsets_[static_cast<std::size_t>(id) + 1];
  }
  for (std::size_t a = 0; a < static_cast<std::size_t>(classes); ++a)
    host_offsets_[a + 1] += host_offsets_[a];
  host_next_.assign(host_offsets_.begin(), host_offsets_.end() - 1);
  host_columns_.resize(ids.size());
  for (std::size_t n = 0; n < ids.size(); ++n)
    host_columns_[static_cast<std::size_t>(host_next_[static_cast<std::size_t>(ids[n])]++)] =
        static_cast<std::int32_t>(n);
  // Every coefficient is 1: uploaded again only when the plan grows (upload_sorted).
  ones_ready_ = host_coefficients_.size() >= ids.size() && ones_only_;
  host_coefficients_.assign(std::max(host_coefficients_.size(), ids.size()), 1.0f);
  targets_ = classes;
  sources_ = static_cast<int>(ids.size());
  cut_chunks();
}

void ScatterPlan::upload_sorted() {
  offsets_.upload(host_offsets_);
  columns_.upload(host_columns_);
  if (!ones_ready_ || coefficients_.size() < static_cast<std::size_t>(sources_)) {
    coefficients_.upload(host_coefficients_);
    ones_only_ = true;
  }
  upload_chunks();
}

void ScatterPlan::upload(int targets, int sources) {
  targets_ = targets;
  sources_ = sources;
  offsets_.upload(host_offsets_);
  columns_.upload(host_columns_);
  coefficients_.upload(host_coefficients_);
  ones_only_ = false;
  upload_chunks();
}

void ScatterPlan::cut_chunks() {
  const std::size_t targets = host_offsets_.size() - 1;
  std::int32_t longest = 0;
  for (std::size_t t = 0; t < targets; ++t)
    longest = std::max(longest, host_offsets_[t + 1] - host_offsets_[t]);
  chunked_ = longest > kChunk;
  if (!chunked_) return;
  host_chunk_first_.clear();
  host_target_chunks_.resize(targets + 1);
  for (std::size_t t = 0; t < targets; ++t) {
    host_target_chunks_[t] = static_cast<std::int32_t>(host_chunk_first_.size());
    for (std::int32_t j = host_offsets_[t]; j < host_offsets_[t + 1]; j += kChunk)
      host_chunk_first_.push_back(j);
  }
  chunks_ = static_cast<int>(host_chunk_first_.size());
  host_target_chunks_[targets] = chunks_;
  host_chunk_first_.push_back(host_offsets_[targets]);  // the end of the last chunk
}

void ScatterPlan::upload_chunks() {
  if (!chunked_) return;
  chunk_first_.upload(host_chunk_first_);
  target_chunks_.upload(host_target_chunks_);
}

void scatter_add(DeviceView d_out, const ScatterPlan& plan, DeviceView d_targets) {
  require(d_targets.rows == d_out.rows && d_targets.cols == plan.targets() &&
              d_out.cols == plan.sources(),
          "scatter_add", "the plan's sources and targets must match d_out and d_targets");
  require(d_targets.is_float32(), "scatter_add", "d_targets is fp32");
  if (plan.chunked()) {
    thread_local DeviceArray<float> partials;  // chunks × rows, kept between steps
    partials.resize(static_cast<std::size_t>(plan.chunks()) * static_cast<std::size_t>(d_out.rows));
    detail::launch_scatter_add_chunked(
        d_out.data, d_out.ld, d_out.element, d_out.rows, plan.chunk_first().data(), plan.chunks(),
        plan.target_chunks().data(), plan.columns().data(), plan.coefficients().data(),
        plan.targets(), partials.data(), d_targets.data, d_targets.ld, nullptr);
    return;
  }
  detail::launch_scatter_add(d_out.data, d_out.ld, d_out.element, d_out.rows, plan.offsets().data(),
                             plan.columns().data(), plan.coefficients().data(), plan.targets(),
                             d_targets.data, d_targets.ld, nullptr);
}

void interpolation_backward_sorted(DeviceView d_out, const DeviceArray<std::int32_t>& first,
                                   const DeviceArray<float>& weight, DeviceView d_frames) {
  require(d_frames.is_float32() && d_frames.rows == d_out.rows &&
              first.size() == static_cast<std::size_t>(d_frames.cols) + 1 &&
              weight.size() == static_cast<std::size_t>(d_out.cols),
          "interpolation_backward_sorted",
          "d_frames (fp32) must have d_out's rows and one column per frame");
  detail::launch_interpolation_backward_sorted(d_out.data, d_out.ld, d_out.element, d_out.rows,
                                               first.data(), weight.data(), d_frames.cols,
                                               d_frames.data, d_frames.ld, nullptr);
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
  thread_local std::vector<double> host;  // kept: a fresh array per step costs its page faults
  losses.resize(logits.cols);
  detail::launch_softmax_cross_entropy(logits.data, targets.data(), logits.rows, logits.cols,
                                       losses.data(), want_gradient ? d_logits.data : nullptr,
                                       d_logits.element, nullptr);
  host.resize(logits.cols);
  losses.download(host.data(), host.size());
  double total = 0.0;
  for (double value : host) total += value;
  return total / static_cast<double>(logits.cols);
}

}  // namespace tts::kernels::cuda
