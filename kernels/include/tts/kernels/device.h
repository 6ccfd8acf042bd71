// Which compute devices this build of tts can use.
#pragma once

#include <string>

namespace tts::kernels {

// True when the CUDA backend was compiled into this build.
bool cuda_backend_built();

// Number of CUDA devices visible at run time (0 when the backend is not built or no GPU/driver).
int cuda_device_count();

// One line for `tts --version`: e.g. "CUDA backend: built, 1 device(s)" or "CUDA backend: not built".
std::string describe_backends();

}  // namespace tts::kernels
