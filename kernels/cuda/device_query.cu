#include <cuda_runtime.h>

#include <string>

#include "cuda_check.h"
#include "device_query.h"

namespace tts::kernels::cuda {

int visible_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later calls start clean
    return 0;
  }
  return count;
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
