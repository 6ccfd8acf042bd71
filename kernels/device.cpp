#include "tts/kernels/device.h"

#include <stdexcept>

#ifdef TTS_HAVE_CUDA
#include "cuda/device_query.h"
#include "tts/kernels/cuda/kernels.h"
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

bool check_training_device(const TrainingDevice& choice) {
  if (choice.precision != "fp32" && choice.precision != "bf16")
    throw std::invalid_argument("precision must be fp32 or bf16, not '" + choice.precision + "'");
  if (choice.device == "cpu") {
    if (choice.precision != "fp32")
      throw std::invalid_argument("precision " + choice.precision +
                                  " needs --device cuda; the CPU trains in fp32");
    return false;
  }
  if (choice.device != "cuda")
    throw std::invalid_argument("device must be cpu or cuda, not '" + choice.device + "'");
  if (!cuda_backend_built())
    throw std::invalid_argument(
        "device cuda: this build has no CUDA backend (configure with -DTTS_CUDA=ON on a machine "
        "with the CUDA toolkit)");
  if (cuda_device_count() == 0) throw std::runtime_error("device cuda: no CUDA device is visible");
  return true;
}

std::string describe_training_device(const TrainingDevice& choice) {
#ifdef TTS_HAVE_CUDA
  if (choice.device == "cuda")
    return "cuda: " + cuda::describe_current_device() + ", " + choice.precision + " GEMMs";
#endif
  return choice.device;
}

}  // namespace tts::kernels
