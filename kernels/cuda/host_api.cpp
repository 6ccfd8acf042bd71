// The host-callable CUDA kernels (tts/kernels/cuda/kernels.h): copy to the device, launch, copy
// back.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "launchers.h"
#include "tts/kernels/cuda/kernels.h"

namespace tts::kernels::cuda {

namespace {

using detail::device_gemm;
using detail::DeviceBuffer;

int as_int(Eigen::Index value, const char* what) {
  if (value < 0 || value > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string(what) + ": dimension too large for the CUDA backend");
  return static_cast<int>(value);
}

// Uploads a (possibly strided) host matrix as a contiguous column-major device matrix.
DeviceBuffer<float> upload(ConstMatrixRef host) {
  DeviceBuffer<float> device(static_cast<std::size_t>(host.size()));
  if (host.outerStride() == host.rows()) {
    device.upload(host.data(), device.size());
  } else {
    const Matrix contiguous = host;
    device.upload(contiguous.data(), device.size());
  }
  return device;
}

void download(const DeviceBuffer<float>& device, MatrixRef host) {
  if (host.size() == 0) return;
  if (host.outerStride() == host.rows()) {
    device.download(host.data(), static_cast<std::size_t>(host.size()));
  } else {
    Matrix contiguous(host.rows(), host.cols());
    device.download(contiguous.data(), static_cast<std::size_t>(contiguous.size()));
    host = contiguous;
  }
}

// `in` rounded to bf16 or fp16 (`precision`), as raw 16-bit patterns.
DeviceBuffer<std::uint16_t> to_half(const DeviceBuffer<float>& in, GemmPrecision precision) {
  DeviceBuffer<std::uint16_t> out(in.size());
  if (precision == GemmPrecision::kFp16)
    detail::launch_float_to_fp16(in.data(), out.data(), in.size(), nullptr);
  else
    detail::launch_float_to_bf16(in.data(), out.data(), in.size(), nullptr);
  return out;
}

bool half_operands(GemmPrecision precision) {
  return precision == GemmPrecision::kBf16 || precision == GemmPrecision::kFp16;
}

}  // namespace

void gemm(MatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
          Transpose transpose_b, float alpha, float beta, GemmPrecision precision) {
  const auto [m, n, k] = gemm_sizes(c, a, transpose_a, b, transpose_b, "cuda::gemm");
  if (m == 0 || n == 0) return;
  if (k == 0) {  // as the CPU: nothing to multiply, only the scaling of C
    if (beta == 0.0f)
      c.setZero();
    else
      c *= beta;
    return;
  }
  DeviceBuffer<float> da = upload(a), db = upload(b);
  DeviceBuffer<float> dc =
      beta == 0.0f ? DeviceBuffer<float>(static_cast<std::size_t>(c.size())) : upload(c);
  const int lda = as_int(a.rows(), "cuda::gemm"), ldb = as_int(b.rows(), "cuda::gemm");
  const int ldc = as_int(c.rows(), "cuda::gemm");
  if (half_operands(precision)) {
    const DeviceBuffer<std::uint16_t> a16 = to_half(da, precision), b16 = to_half(db, precision);
    device_gemm(as_int(m, "cuda::gemm"), as_int(n, "cuda::gemm"), as_int(k, "cuda::gemm"),
                transpose_a, transpose_b, alpha, a16.data(), lda, b16.data(), ldb, beta, dc.data(),
                ldc, precision);
  } else {
    device_gemm(as_int(m, "cuda::gemm"), as_int(n, "cuda::gemm"), as_int(k, "cuda::gemm"),
                transpose_a, transpose_b, alpha, da.data(), lda, db.data(), ldb, beta, dc.data(),
                ldc, precision);
  }
  download(dc, c);
}

void gate_forward(ConstMatrixRef z, MatrixRef gated, MatrixRef tanh_out, MatrixRef sigmoid_out) {
  const Eigen::Index r = z.rows() / 2;
  const bool keep = tanh_out.size() > 0 && sigmoid_out.size() > 0;
  if (z.rows() != 2 * r || gated.rows() != r || gated.cols() != z.cols() ||
      (keep && (tanh_out.rows() != r || tanh_out.cols() != z.cols() || sigmoid_out.rows() != r ||
                sigmoid_out.cols() != z.cols())))
    throw std::invalid_argument("cuda::gate_forward: shapes do not agree");
  if (gated.size() == 0) return;
  const DeviceBuffer<float> dz = upload(z);
  const std::size_t count = static_cast<std::size_t>(gated.size());
  DeviceBuffer<float> d_gated(count), d_tanh(keep ? count : 0), d_sigmoid(keep ? count : 0);
  const int rows = as_int(r, "cuda::gate_forward");
  detail::launch_gate_forward(dz.data(), 2 * rows, rows, as_int(z.cols(), "cuda::gate_forward"),
                              d_gated.data(), rows, keep ? d_tanh.data() : nullptr,
                              keep ? d_sigmoid.data() : nullptr, nullptr);
  download(d_gated, gated);
  if (keep) {
    download(d_tanh, tanh_out);
    download(d_sigmoid, sigmoid_out);
  }
}

void gate_backward(ConstMatrixRef d_gated, ConstMatrixRef tanh_out, ConstMatrixRef sigmoid_out,
                   MatrixRef dz) {
  const Eigen::Index r = d_gated.rows(), n = d_gated.cols();
  if (tanh_out.rows() != r || tanh_out.cols() != n || sigmoid_out.rows() != r ||
      sigmoid_out.cols() != n || dz.rows() != 2 * r || dz.cols() != n)
    throw std::invalid_argument("cuda::gate_backward: shapes do not agree");
  if (dz.size() == 0) return;
  const DeviceBuffer<float> dg = upload(d_gated), dt = upload(tanh_out), ds = upload(sigmoid_out);
  DeviceBuffer<float> ddz(static_cast<std::size_t>(dz.size()));
  const int rows = as_int(r, "cuda::gate_backward");
  detail::launch_gate_backward(dg.data(), rows, dt.data(), ds.data(), rows,
                               as_int(n, "cuda::gate_backward"), ddz.data(), 2 * rows,
                               Element::kFloat32, nullptr);
  download(ddz, dz);
}

double softmax_cross_entropy(ConstMatrixRef logits, const std::vector<int32_t>& targets,
                             MatrixRef d_logits) {
  const Eigen::Index classes = logits.rows(), n = logits.cols();
  if (static_cast<Eigen::Index>(targets.size()) != n)
    throw std::invalid_argument("cuda::softmax_cross_entropy: " + std::to_string(targets.size()) +
                                " targets for " + std::to_string(n) + " columns");
  for (Eigen::Index t = 0; t < n; ++t)
    if (targets[t] < 0 || targets[t] >= classes)
      throw std::invalid_argument("cuda::softmax_cross_entropy: target " +
                                  std::to_string(targets[t]) + " out of range at column " +
                                  std::to_string(t));
  const bool want_gradient = d_logits.size() > 0;
  if (want_gradient && (d_logits.rows() != classes || d_logits.cols() != n))
    throw std::invalid_argument("cuda::softmax_cross_entropy: gradient shape does not agree");
  if (n == 0) return std::nan("");  // as the CPU's 0/0
  const DeviceBuffer<float> dl = upload(logits);
  DeviceBuffer<int32_t> dt(targets.size());
  dt.upload(targets.data(), targets.size());
  DeviceBuffer<double> loss(static_cast<std::size_t>(n));
  DeviceBuffer<float> dd(want_gradient ? static_cast<std::size_t>(d_logits.size()) : 0);
  detail::launch_softmax_cross_entropy(
      dl.data(), dt.data(), as_int(classes, "cuda::softmax_cross_entropy"),
      as_int(n, "cuda::softmax_cross_entropy"), loss.data(), want_gradient ? dd.data() : nullptr,
      Element::kFloat32, nullptr);
  if (want_gradient) download(dd, d_logits);
  double total = 0.0;
  for (double value : loss.to_host()) total += value;
  return total / static_cast<double>(n);
}

std::vector<int32_t> softmax_sample(ConstMatrixRef logits, float temperature,
                                    const std::vector<float>& uniforms) {
  const Eigen::Index n = logits.cols();
  if (static_cast<Eigen::Index>(uniforms.size()) != n)
    throw std::invalid_argument("cuda::softmax_sample: " + std::to_string(uniforms.size()) +
                                " uniforms for " + std::to_string(n) + " columns");
  if (logits.rows() == 0) throw std::invalid_argument("cuda::softmax_sample: no classes");
  if (n == 0) return {};
  const DeviceBuffer<float> dl = upload(logits);
  DeviceBuffer<float> du(uniforms.size());
  du.upload(uniforms.data(), uniforms.size());
  DeviceBuffer<int32_t> out(static_cast<std::size_t>(n));
  detail::launch_softmax_sample(dl.data(), du.data(), as_int(logits.rows(), "cuda::softmax_sample"),
                                as_int(n, "cuda::softmax_sample"), temperature, out.data(),
                                nullptr);
  return out.to_host();
}

std::vector<GemmTiming> benchmark_gemms(const std::vector<GemmShape>& shapes,
                                        GemmPrecision precision, int repeats) {
  if (repeats < 1) throw std::invalid_argument("cuda::benchmark_gemms: repeats < 1");
  std::vector<GemmTiming> timings;
  cudaEvent_t start = nullptr, stop = nullptr;
  TTS_CUDA_CHECK(cudaEventCreate(&start));
  TTS_CUDA_CHECK(cudaEventCreate(&stop));
  try {
    for (const GemmShape& s : shapes) {
      const bool ta = s.transpose_a == Transpose::kYes, tb = s.transpose_b == Transpose::kYes;
      const int a_rows = ta ? s.k : s.m, b_rows = tb ? s.n : s.k;
      const std::size_t a_size = std::size_t(s.m) * s.k, b_size = std::size_t(s.k) * s.n;
      DeviceBuffer<float> a(a_size), b(b_size), c(std::size_t(s.m) * s.n);
      detail::launch_fill_pattern(a.data(), a_size, 0.5f, nullptr);
      detail::launch_fill_pattern(b.data(), b_size, 0.5f, nullptr);
      DeviceBuffer<std::uint16_t> a16, b16;
      const void* pa = a.data();
      const void* pb = b.data();
      if (half_operands(precision)) {
        a16 = to_half(a, precision);
        b16 = to_half(b, precision);
        pa = a16.data();
        pb = b16.data();
      }
      auto run = [&] {
        for (int i = 0; i < s.count; ++i)
          device_gemm(s.m, s.n, s.k, s.transpose_a, s.transpose_b, 1.0f, pa, a_rows, pb, b_rows,
                      0.0f, c.data(), s.m, precision);
      };
      run();  // warm-up: cuBLAS picks and loads its kernel
      TTS_CUDA_CHECK(cudaDeviceSynchronize());
      TTS_CUDA_CHECK(cudaEventRecord(start));
      for (int r = 0; r < repeats; ++r) run();
      TTS_CUDA_CHECK(cudaEventRecord(stop));
      TTS_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      TTS_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      timings.push_back({1e-3 * ms / repeats, 2.0 * s.m * s.n * double(s.k) * s.count});
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return timings;
}

std::string describe_current_device() {
  int device = 0;
  TTS_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  TTS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
         std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
}

}  // namespace tts::kernels::cuda
