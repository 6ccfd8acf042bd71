#include "tts/kernels/device.h"

#include <stdexcept>

#include "tts/kernels/cuda_library.h"

namespace tts::kernels {

namespace {

template <typename T>
std::string accepted(const std::map<std::string, T>& names) {
  std::string list;
  for (const auto& [name, value] : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace

const char* to_string(Device device) { return device == Device::kCuda ? "cuda" : "cpu"; }

const char* to_string(GemmPrecision precision) {
  switch (precision) {
    case GemmPrecision::kBf16:
      return "bf16";
    case GemmPrecision::kFp16:
      return "fp16";
    case GemmPrecision::kFp32:
      break;
  }
  return "fp32";
}

const std::map<std::string, Device>& device_names() {
  static const std::map<std::string, Device> names{{"cpu", Device::kCpu}, {"cuda", Device::kCuda}};
  return names;
}

const std::map<std::string, GemmPrecision>& precision_names() {
  static const std::map<std::string, GemmPrecision> names{{"fp32", GemmPrecision::kFp32},
                                                          {"bf16", GemmPrecision::kBf16},
                                                          {"fp16", GemmPrecision::kFp16}};
  return names;
}

Device parse_device(const std::string& name) {
  const auto it = device_names().find(name);
  if (it == device_names().end())
    throw std::invalid_argument("device must be one of " + accepted(device_names()) + ", not '" +
                                name + "'");
  return it->second;
}

GemmPrecision parse_precision(const std::string& name) {
  const auto it = precision_names().find(name);
  if (it == precision_names().end())
    throw std::invalid_argument("precision must be one of " + accepted(precision_names()) +
                                ", not '" + name + "'");
  return it->second;
}

bool cuda_backend_built() {
#ifdef TTS_CUDA_LIBRARY_BUILD_PATH
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
  if (!cuda_backend_built()) return 0;
  try {
    return cuda_library().visible_device_count();
  } catch (const std::exception&) {
    return 0;  // the library cannot be loaded: no device this process can use
  }
}

void require_device(Device device) {
  if (device == Device::kCpu) return;
  CudaLibrary& library = cuda_library();  // throws: no backend built, or it cannot be loaded
  if (library.visible_device_count() == 0)
    throw std::runtime_error("no CUDA device is visible (no GPU, or no driver); use the CPU");
}

void check_device_choice(const DeviceChoice& choice) {
  if (choice.device == Device::kCpu && choice.precision != GemmPrecision::kFp32)
    throw std::invalid_argument(std::string("precision ") + to_string(choice.precision) +
                                " needs --device cuda; the CPU computes in fp32");
  try {
    require_device(choice.device);
  } catch (const std::invalid_argument& e) {  // the messages name the device, as the options do
    throw std::invalid_argument(std::string("device cuda: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("device cuda: ") + e.what());
  }
}

std::string describe_backends() {
  if (!cuda_backend_built()) return "CUDA backend: not built";
  return std::string("CUDA backend: built (libtts_cuda.so, loaded on first GPU use") +
         (cuda_library_loaded() ? "; loaded)" : ")");
}

}  // namespace tts::kernels
