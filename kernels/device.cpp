#include "tts/kernels/device.h"

#ifdef TTS_HAVE_CUDA
#include "cuda/device_query.h"
#endif

namespace tts::kernels {

bool cuda_backend_built() {
#ifdef TTS_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
#ifdef TTS_HAVE_CUDA
  return cuda::visible_device_count();
#else
  return 0;
#endif
}

std::string describe_backends() {
  if (!cuda_backend_built()) return "CUDA backend: not built";
  return "CUDA backend: built, " + std::to_string(cuda_device_count()) + " device(s) visible";
}

}  // namespace tts::kernels
