// Internal: the CUDA implementation of tts::kernels::Backend (cuda_backend.cpp), reached through
// tts::kernels::cuda_backend() (tts/kernels/ops/backends.h).
#pragma once

#include "tts/kernels/ops/backend.h"

namespace tts::kernels::cuda {

// The process's CUDA backend on the current device, created on first use.
Backend& backend();

}  // namespace tts::kernels::cuda
