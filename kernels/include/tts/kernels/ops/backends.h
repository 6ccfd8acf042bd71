// The backends this build has, and the one mapping from a training run's choice of device and
// precision (`--device`, `--precision`: kernels::TrainingDevice) to a Backend and a GemmPrecision,
// shared by every model's training pass. The `#ifdef TTS_HAVE_CUDA` of choosing a backend lives in
// ops/backends.cpp alone.
#pragma once

#include <string>

#include "tts/kernels/device.h"
#include "tts/kernels/ops/backend.h"

namespace tts::kernels {

// The process's CPU backend (ops/cpu_backend.cpp).
Backend& cpu_backend();

// The process's CUDA backend, created on first use on the current device. Throws
// std::invalid_argument in a build without the CUDA backend, std::runtime_error when no CUDA
// device is visible.
Backend& cuda_backend();

// The backend and GEMM precision of a choice; both throw as check_training_device for an unusable
// one.
Backend& training_backend(const TrainingDevice& choice);
GemmPrecision training_precision(const TrainingDevice& choice);

// "cpu", or "cuda: NVIDIA H200 (sm_90, …), bf16 GEMMs", for logs: the CPU computes in fp32 only,
// so its line names no precision.
std::string describe(const Backend& backend, GemmPrecision precision);

}  // namespace tts::kernels
