#include "tts/kernels/ops/backends.h"

#include "tts/kernels/cuda_library.h"

namespace tts::kernels {

Backend& cuda_backend() {
  require_device(Device::kCuda);  // the build, the library and a visible device, with messages
  return cuda_library().backend();
}

Backend& backend_for(const DeviceChoice& choice) {
  check_device_choice(choice);
  return choice.device == Device::kCuda ? cuda_backend() : cpu_backend();
}

std::string describe(const Backend& backend, GemmPrecision precision) {
  if (backend.host_resident()) return backend.describe();
  return backend.describe() + ", " + to_string(precision) + " GEMMs";
}

}  // namespace tts::kernels
