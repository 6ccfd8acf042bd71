// Timing cuBLAS GEMMs on device-resident operands: the shapes a training step issues, each timed
// with CUDA events, for the GEMM bound of a step (tests/cuda_gemm_benchmark_test.cpp). Internal to
// the CUDA backend and its benchmarks.
#pragma once

#include <string>
#include <vector>

#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/ops/backend.h"

namespace tts::kernels::cuda {

// One GEMM shape of a benchmark: C (m × n) = op(A) · op(B) with inner dimension k, `count` times.
struct GemmShape {
  std::string name;
  int m = 0, n = 0, k = 0;
  Transpose transpose_a = Transpose::kNo, transpose_b = Transpose::kNo;
  int count = 1;
};

struct GemmTiming {
  double seconds = 0.0;  // per run of the shape (all `count` GEMMs), device time
  double flops = 0.0;    // 2·m·n·k·count
};

// Times each shape on device-resident operands (bf16 operands are converted once, outside the
// timing, as training would keep them): `repeats` timed runs after a warm-up; CUDA events.
std::vector<GemmTiming> benchmark_gemms(const std::vector<GemmShape>& shapes,
                                        GemmPrecision precision, int repeats);

}  // namespace tts::kernels::cuda
