// Dense linear algebra: the GEMMs of training and the matrix-vector products of sampling.
#pragma once

#include "tts/kernels/tensor.h"

namespace tts::kernels {

enum class Transpose { kNo, kYes };

// C = alpha · op(A) · op(B) + beta · C. With beta == 0, C's previous contents are ignored.
void gemm(MatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
          Transpose transpose_b, float alpha = 1.0f, float beta = 0.0f);

// The sizes of C = op(A) · op(B): m × n with inner dimension k. Throws std::invalid_argument
// starting with `who` when A, B and C do not agree. Shared by the CPU and CUDA GEMMs.
struct GemmSizes {
  Eigen::Index m = 0, n = 0, k = 0;
};
GemmSizes gemm_sizes(ConstMatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
                     Transpose transpose_b, const char* who);

// y = A · x (+ y when accumulate). The serial-path product of incremental sampling.
void gemv(VectorRef y, ConstMatrixRef a, ConstVectorRef x, bool accumulate = false);

// The ISA variant the CPU kernels (GEMV, gate, softmax sampling, layer norm) run, with its
// instructions, for reports: e.g. "avx512 (x86-64-v4: AVX-512 F/BW/DQ/VL/CD)". Choosing one:
// tts/kernels/cpu_isa.h.
const char* cpu_kernel_isa();

// Threads that one GEMM may use (OpenBLAS's pool; process-wide). Training calls this once.
void set_gemm_threads(int threads);

// The OpenBLAS kernels GEMM runs ("SkylakeX", "Haswell", ...). OpenBLAS 0.3.21 does not know
// recent CPU models (e.g. Intel family 6 model 207) and falls back to its SSE3 "Prescott" kernels,
// 5.5 times slower on AVX-512 hardware; when it has done so, tts_kernels switches it at load time
// to the kernels the CPU supports (SkylakeX with AVX-512, Haswell with AVX2 and FMA), unless
// OPENBLAS_CORETYPE is set. `switched_from` (when not null) gets the fallback that was replaced
// ("" when nothing was).
const char* gemm_kernels(const char** switched_from = nullptr);

// Adds `bias` to every column of `x`.
void add_bias(MatrixRef x, ConstVectorRef bias);

// out (+)= the sum of x's columns (the gradient of a bias).
void accumulate_row_sums(VectorRef out, ConstMatrixRef x);

}  // namespace tts::kernels
