// The GEMM bound of a WaveNet training step on the GPU: cuBLAS times every GEMM shape of one step
// on device-resident operands (kernels/cuda/gemm_benchmark.h). Reported, never asserted beyond
// "it ran"; runs only with TTS_CUDA_BENCH=1 on a machine with a GPU (scripts/gpu-check), and skips
// saying why otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_query.h"
#include "gemm_benchmark.h"
#include "skip_without_gpu.h"

namespace cuda = tts::kernels::cuda;
using tts::kernels::Transpose;

// The GEMMs of one WaveNet training step (L=20, R=64, S=256, 256 classes, 80 mels at hop 200) over
// N columns (time steps of all crops), forward and backward, as vocoder/teacher_forced.cpp issues
// them. Reports each shape's TFLOP/s against the H200's datasheet peak, and the step's GEMM time as
// a bound on training samples per second (the goal: 10 million/s in bf16).
TEST(CudaBenchmark, TrainingStepGemms) {
  TTS_SKIP_WITHOUT_GPU();
  const char* enabled = std::getenv("TTS_CUDA_BENCH");
  if (!enabled || std::string(enabled) != "1") GTEST_SKIP() << "set TTS_CUDA_BENCH=1 to run";
  const char* columns_env = std::getenv("TTS_CUDA_BENCH_COLUMNS");
  const int N = columns_env ? std::atoi(columns_env) : 32768;
  const int L = 20, R = 64, S = 256, classes = 256, mels = 80, frames = (N + 199) / 200;
  const Transpose no = Transpose::kNo, yes = Transpose::kYes;
  const std::vector<cuda::GemmShape> shapes = {
      {"fwd conditioning", L * 2 * R, frames, mels, no, no, 1},
      {"fwd dilated", 2 * R, N, 2 * R, no, no, L},
      {"fwd residual", R, N, R, no, no, L - 1},
      {"fwd skip", S, N, L * R, no, no, 1},
      {"fwd head hidden", S, N, S, no, no, 1},
      {"fwd head output", classes, N, S, no, no, 1},
      {"bwd head output dW", classes, S, N, no, yes, 1},
      {"bwd head output dX", S, N, classes, yes, no, 1},
      {"bwd head hidden dW", S, S, N, no, yes, 1},
      {"bwd head hidden dX", S, N, S, yes, no, 1},
      {"bwd skip dW", S, L * R, N, no, yes, 1},
      {"bwd skip dX", L * R, N, S, yes, no, 1},
      {"bwd residual dX", R, N, R, yes, no, L - 1},
      {"bwd residual dW", R, R, N, no, yes, L - 1},
      {"bwd dilated dW", 2 * R, 2 * R, N, no, yes, L},
      {"bwd dilated dX", 2 * R, N, 2 * R, yes, no, L},
      {"bwd conditioning dW", L * 2 * R, mels, frames, no, yes, 1},
  };
  std::printf("device: %s; N = %d columns\n", cuda::describe_current_device().c_str(), N);
  for (tts::kernels::GemmPrecision precision :
       {tts::kernels::GemmPrecision::kFp32, tts::kernels::GemmPrecision::kBf16}) {
    // H200 SXM datasheet, dense: 67 TFLOP/s fp32 (CUDA cores), 989 TFLOP/s bf16 (tensor cores).
    const double peak = precision == tts::kernels::GemmPrecision::kBf16 ? 989e12 : 67e12;
    const std::vector<cuda::GemmTiming> timings = cuda::benchmark_gemms(shapes, precision, 20);
    double seconds = 0.0, flops = 0.0;
    std::printf("%-22s %5s %6s %6s %3s %10s %9s %7s\n", to_string(precision), "m", "n", "k", "x",
                "us", "TFLOP/s", "% peak");
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const cuda::GemmShape& s = shapes[i];
      const double tflops = timings[i].flops / timings[i].seconds / 1e12;
      std::printf("%-22s %5d %6d %6d %3d %10.1f %9.2f %6.1f%%\n", s.name.c_str(), s.m, s.n, s.k,
                  s.count, timings[i].seconds * 1e6, tflops, 100.0 * tflops * 1e12 / peak);
      seconds += timings[i].seconds;
      flops += timings[i].flops;
      EXPECT_GT(timings[i].seconds, 0.0);
    }
    std::printf(
        "GPU_BENCH %s step_gemm_ms=%.3f tflops=%.2f peak_pct=%.1f gemm_bound_samples_per_s=%.3g\n",
        to_string(precision), seconds * 1e3, flops / seconds / 1e12, 100.0 * flops / seconds / peak,
        N / seconds);
  }
}
