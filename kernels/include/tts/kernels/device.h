// Which compute devices this build of tts can use.
#pragma once

#include <string>

namespace tts::kernels {

// True when the CUDA backend was compiled into this build.
bool cuda_backend_built();

// Number of CUDA devices visible at run time (0 when the backend is not built or no GPU/driver).
int cuda_device_count();

// A training run's choice of device and GEMM precision (`tts train … --device --precision`),
// shared by the vocoder's and the acoustic model's passes.
struct TrainingDevice {
  std::string device = "cpu";      // "cpu" or "cuda"
  std::string precision = "fp32";  // "fp32", or "bf16" (GEMM operands in bf16; CUDA only)
};

// Checks a choice before any work: throws std::invalid_argument for an unknown device or
// precision, bf16 on the CPU, or "cuda" in a build without the CUDA backend; std::runtime_error
// when no CUDA device is visible. Returns true when the choice is CUDA.
bool check_training_device(const TrainingDevice& choice);

// "cpu", or "cuda: NVIDIA H200 (sm_90, …), bf16 GEMMs", for logs (the choice must have passed
// check_training_device).
std::string describe_training_device(const TrainingDevice& choice);

// One line for `tts --version`: e.g. "CUDA backend: built, 1 device(s)" or "CUDA backend: not
// built".
std::string describe_backends();

}  // namespace tts::kernels
