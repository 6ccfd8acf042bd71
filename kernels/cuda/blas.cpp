#include "blas.h"

#include "cuda_check.h"

namespace tts::kernels::cuda::detail {

namespace {

class BlasHandle {
 public:
  BlasHandle() {
    TTS_CUBLAS_CHECK(cublasCreate(&handle_));
    TTS_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  }
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  ~BlasHandle() { cublasDestroy(handle_); }  // errors at process exit are not actionable
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

cublasOperation_t op(Transpose t) { return t == Transpose::kYes ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

cublasHandle_t blas_handle() {
  thread_local BlasHandle handle;
  return handle.get();
}

void device_gemm(int m, int n, int k, Transpose ta, Transpose tb, float alpha, const void* a,
                 int lda, const void* b, int ldb, float beta, void* c, int ldc,
                 GemmPrecision precision, bool c_rounded) {
  const cudaDataType_t in_type = precision == GemmPrecision::kBf16   ? CUDA_R_16BF
                                 : precision == GemmPrecision::kFp16 ? CUDA_R_16F
                                                                     : CUDA_R_32F;
  TTS_CUBLAS_CHECK(cublasGemmEx(blas_handle(), op(ta), op(tb), m, n, k, &alpha, a, in_type, lda, b,
                                in_type, ldb, &beta, c, c_rounded ? in_type : CUDA_R_32F, ldc,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace tts::kernels::cuda::detail
