#include "tts/kernels/ops/backends.h"

#include <stdexcept>

#ifdef TTS_HAVE_CUDA
#include "../cuda/cuda_backend.h"
#endif

namespace tts::kernels {

Backend& cuda_backend() {
  check_training_device({"cuda", "fp32"});  // the build and a visible device, with their messages
#ifdef TTS_HAVE_CUDA
  return cuda::backend();
#else
  throw std::logic_error("check_training_device accepted cuda in a build without it");
#endif
}

Backend& training_backend(const TrainingDevice& choice) {
  return check_training_device(choice) ? cuda_backend() : cpu_backend();
}

GemmPrecision training_precision(const TrainingDevice& choice) {
  check_training_device(choice);
  return choice.precision == "bf16" ? GemmPrecision::kBf16 : GemmPrecision::kFp32;
}

std::string describe(const Backend& backend, GemmPrecision precision) {
  if (backend.host_resident()) return backend.describe();
  return backend.describe() + ", " + to_string(precision) + " GEMMs";
}

}  // namespace tts::kernels
