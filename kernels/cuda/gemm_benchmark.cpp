#include "gemm_benchmark.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "blas.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "launchers.h"

namespace tts::kernels::cuda {

namespace {

using detail::device_gemm;
using detail::DeviceBuffer;

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

}  // namespace tts::kernels::cuda
