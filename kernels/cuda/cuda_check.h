// Internal: turns a failed CUDA runtime or cuBLAS call into a std::runtime_error that names the
// call, the file and the line. A library never calls exit(): the caller decides what a failure
// means.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tts::kernels::cuda::detail {

[[noreturn]] inline void throw_cuda_error(const char* what, const char* detail, const char* call,
                                          const char* file, int line) {
  throw std::runtime_error(std::string(what) + " " + detail + " in " + call + " at " + file + ":" +
                           std::to_string(line));
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw_cuda_error(
      "CUDA error",
      (std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")").c_str(),
      call, file, line);
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw_cuda_error("cuBLAS error", cublasGetStatusString(status), call, file, line);
}

}  // namespace tts::kernels::cuda::detail

// TTS_CUDA_CHECK(cudaMalloc(&p, bytes)); throws std::runtime_error on failure.
#define TTS_CUDA_CHECK(call) \
  ::tts::kernels::cuda::detail::check_cuda((call), #call, __FILE__, __LINE__)
// TTS_CUBLAS_CHECK(cublasGemmEx(...)); throws std::runtime_error on failure.
#define TTS_CUBLAS_CHECK(call) \
  ::tts::kernels::cuda::detail::check_cublas((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports a bad launch configuration at once (execution errors surface at
// the next synchronising call, which is checked too).
#define TTS_CUDA_CHECK_LAUNCH() TTS_CUDA_CHECK(cudaGetLastError())
