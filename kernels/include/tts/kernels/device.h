// The one device type of the project, from the C API's TTS_DEVICE_* and the command line's
// `--device`/`--precision` down to the backend that computes: which device, at which GEMM
// precision, and whether this build and machine can use it. The CUDA backend is a library of its
// own (libtts_cuda.so, tts/kernels/cuda_library.h), loaded on the first use of a GPU, so nothing
// here loads CUDA until a caller asks for the device.
#pragma once

#include <map>
#include <string>

namespace tts::kernels {

enum class Device { kCpu, kCuda };

enum class GemmPrecision {
  kFp32,  // fp32 inputs, fp32 accumulation (on CUDA: CUBLAS_COMPUTE_32F, no TF32)
  kBf16,  // inputs rounded to bf16 (nearest even), fp32 accumulation and output (CUDA only)
  // Inputs rounded to IEEE half (nearest even; beyond ±65504 they become ±inf), fp32 accumulation
  // and output (CUDA only). Training in fp16 wants dynamic loss scaling (docs/training.md).
  kFp16,
};

// "cpu" / "cuda"; "fp32" / "bf16" / "fp16".
const char* to_string(Device device);
const char* to_string(GemmPrecision precision);

// The names the command line, config files and Speech Dispatcher's settings accept, each mapped to
// its value (for CLI11's CheckedTransformer and for parse_device/parse_precision).
const std::map<std::string, Device>& device_names();
const std::map<std::string, GemmPrecision>& precision_names();

// Throws std::invalid_argument naming the text and the accepted names.
Device parse_device(const std::string& name);
GemmPrecision parse_precision(const std::string& name);

// Where a computation runs and its GEMMs' precision (`tts train … --device --precision`,
// `tts bench`); synthesis uses the device alone.
struct DeviceChoice {
  Device device = Device::kCpu;
  GemmPrecision precision = GemmPrecision::kFp32;
};

// True when the CUDA backend was built with this tree (libtts_cuda.so exists to be loaded); says
// nothing about a GPU and loads nothing.
bool cuda_backend_built();

// Number of CUDA devices visible at run time: 0 when the backend is not built, cannot be loaded,
// or there is no GPU or driver. Loads the CUDA backend when it is built.
int cuda_device_count();

// Checks that `device` can run here before any work: throws std::invalid_argument for CUDA in a
// build without the backend, std::runtime_error when the backend cannot be loaded or no CUDA device
// is visible (each message says what to use instead). The CPU always passes.
void require_device(Device device);

// require_device, and refuses bf16 and fp16 on the CPU (std::invalid_argument): the CPU computes in
// fp32.
void check_device_choice(const DeviceChoice& choice);

// One line for `tts --version`, without loading CUDA: "CUDA backend: built (libtts_cuda.so,
// loaded on first GPU use)" or "CUDA backend: not built".
std::string describe_backends();

}  // namespace tts::kernels
