// Host-side queries of the CUDA runtime; compiled only when the CUDA backend is built.
#pragma once

namespace tts::kernels::cuda {

// Devices the CUDA runtime can see; 0 when there is no driver or no GPU (never an error).
int visible_device_count();

}  // namespace tts::kernels::cuda
