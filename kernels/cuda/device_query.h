// Host-side queries of the CUDA runtime; compiled only when the CUDA backend is built.
#pragma once

#include <string>

namespace tts::kernels::cuda {

// Devices the CUDA runtime can see; 0 when there is no driver or no GPU (never an error).
int visible_device_count();

// "NVIDIA H200 (sm_90, 132 SMs, 140 GiB)" for the current device; throws std::runtime_error when
// there is none.
std::string describe_current_device();

}  // namespace tts::kernels::cuda
