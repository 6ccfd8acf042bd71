// The CUDA backend's first kernels, callable from host code on host Eigen matrices. Each mirrors a
// CPU kernel of the same name (tts/kernels/linear_algebra.h, activations.h, softmax.h) with the
// same shapes and semantics, so the two can be compared value for value
// (tests/cuda_kernels_test.cpp).
//
// Every call copies its inputs to the GPU, runs, and copies the results back, synchronously, on the
// current device. The device-resident versions that a training step chains without host copies
// (device_ops.h) launch the same kernels.
// Only available when the CUDA backend is built (TTS_HAVE_CUDA); every function throws
// std::runtime_error naming the failed CUDA/cuBLAS call when the device reports an error (for
// example when no GPU is visible), and std::invalid_argument on mismatched shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/ops/backend.h"
#include "tts/kernels/tensor.h"

namespace tts::kernels::cuda {

// One precision type for every backend (tts/kernels/ops/backend.h): kFp32 is cuBLAS
// CUBLAS_COMPUTE_32F without TF32; kBf16 (kFp16) rounds the inputs to bf16 (IEEE half), nearest
// even, on the device, fp32 accumulation, tensor cores.
using kernels::GemmPrecision;
using kernels::to_string;

// C = alpha · op(A) · op(B) + beta · C through cuBLAS (cublasGemmEx), as tts::kernels::gemm.
void gemm(MatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
          Transpose transpose_b, float alpha = 1.0f, float beta = 0.0f,
          GemmPrecision precision = GemmPrecision::kFp32);

// As tts::kernels::gate_forward: z has 2R rows (filter half then gate half); tanh_out and
// sigmoid_out may both be empty (nothing kept).
void gate_forward(ConstMatrixRef z, MatrixRef gated, MatrixRef tanh_out, MatrixRef sigmoid_out);

// As tts::kernels::gate_backward.
void gate_backward(ConstMatrixRef d_gated, ConstMatrixRef tanh_out, ConstMatrixRef sigmoid_out,
                   MatrixRef dz);

// As tts::kernels::softmax_cross_entropy: the mean loss in nats, and its gradient in d_logits when
// d_logits is non-empty. One warp per column.
double softmax_cross_entropy(ConstMatrixRef logits, const std::vector<int32_t>& targets,
                             MatrixRef d_logits);

// tts::kernels::softmax_sample for every column of `logits` (classes × streams) at once: column t
// is sampled at uniforms[t] with the same temperature semantics and cumulative-sum convention, so
// the classes equal the CPU's except where uniform·Σp falls within rounding of a class boundary.
std::vector<int32_t> softmax_sample(ConstMatrixRef logits, float temperature,
                                    const std::vector<float>& uniforms);

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

// "NVIDIA H200 (sm_90, 132 SMs, 140 GiB)" for the current device.
std::string describe_current_device();

}  // namespace tts::kernels::cuda
