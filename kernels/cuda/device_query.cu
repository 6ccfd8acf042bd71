#include <cuda_runtime.h>

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

}  // namespace tts::kernels::cuda
