// Internal: the cuBLAS handle of the calling host thread, and the one GEMM call that every CUDA
// path goes through (the device-resident device_ops.h API and the GEMM benchmark).
#pragma once

#include <cublas_v2.h>

#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/ops/backend.h"

namespace tts::kernels::cuda::detail {

// One handle per host thread, created on first use (creating one costs milliseconds); fp32 GEMMs
// stay fp32 (no TF32), since TF32 would silently change the numbers the parity tests compare.
cublasHandle_t blas_handle();

// C = alpha·op(A)·op(B) + beta·C on device operands (A and B in `precision`'s format; C fp32, or
// in A and B's 16-bit format when c_rounded), column-major with leading dimensions lda, ldb, ldc;
// fp32 accumulation; on the default stream.
void device_gemm(int m, int n, int k, Transpose ta, Transpose tb, float alpha, const void* a,
                 int lda, const void* b, int ldb, float beta, void* c, int ldc,
                 GemmPrecision precision, bool c_rounded = false);

}  // namespace tts::kernels::cuda::detail
