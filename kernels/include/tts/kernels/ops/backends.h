// The backends this build has, and the one mapping from a device choice (`--device`,
// `--precision`: kernels::DeviceChoice) to a Backend, shared by every model's training pass. The
// CUDA backend comes from libtts_cuda.so, loaded here on first use (tts/kernels/cuda_library.h).
#pragma once

#include <string>

#include "tts/kernels/device.h"
#include "tts/kernels/ops/backend.h"

namespace tts::kernels {

// The process's CPU backend (ops/cpu_backend.cpp).
Backend& cpu_backend();

// The process's CUDA backend on the current device, loading the CUDA library on first use. Throws
// as require_device(Device::kCuda).
Backend& cuda_backend();

// The backend of a choice; throws as check_device_choice for an unusable one.
Backend& backend_for(const DeviceChoice& choice);

// "cpu", or "cuda: NVIDIA H200 (sm_90, …), bf16 GEMMs", for logs: the CPU computes in fp32 only,
// so its line names no precision.
std::string describe(const Backend& backend, GemmPrecision precision);

}  // namespace tts::kernels
