// The CUDA backend as a library loaded on first use. Everything that touches CUDA (the kernels,
// cuBLAS, cuDNN, the CUDA runtime) is built into libtts_cuda.so, which `tts` and libtts open with
// dlopen the first time a GPU is asked for. A CPU-only run of a CUDA build thus maps none of the
// CUDA libraries (about 230 MB and 0.15 s of start-up when linked directly).
//
// The library gives this interface, the only way the rest of the engine reaches CUDA: the
// device-op Backend of the training and acoustic passes (tts/kernels/ops/backend.h), and the
// WaveNet sampler's device state (tts/kernels/cuda/wavenet_sampling.h, behind SamplingModel and
// SamplingBatch). Both sides are built by one compiler from one tree, so C++ types cross it; the
// entry point is one C symbol, kCudaLibraryEntryPoint, so the lookup needs no name mangling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tts/kernels/ops/backend.h"
#include "tts/kernels/wavenet_sampling_weights.h"

namespace tts::kernels {

// A WaveNet's weights uploaded to the device: immutable, shared by every batch sampled with them
// (a voice uploads once, however many streams it serves).
class SamplingModel {
 public:
  virtual ~SamplingModel() = default;
};

// Streams sampled together on the device (the contract of cuda::WaveNetSamplingBatch).
class SamplingBatch {
 public:
  virtual ~SamplingBatch() = default;
  virtual void start(int stream, const float* conditioning, int frames, std::size_t total_samples,
                     std::int32_t previous_class) = 0;
  // limits, when not null: at most limits[s] samples of stream s (a serving batch advances each
  // stream as far as its listener asks).
  virtual std::vector<std::size_t> generate(std::size_t count, const float* uniforms,
                                            std::int32_t* out, float temperature, float* logits_out,
                                            const std::size_t* limits = nullptr) = 0;
  virtual int streams() const = 0;
  virtual const char* kernel_name() const = 0;
  virtual std::size_t remaining(int stream) const = 0;
  virtual double last_kernel_seconds() const = 0;
};

class CudaLibrary {
 public:
  virtual ~CudaLibrary() = default;
  // Devices the CUDA runtime sees; 0 without a driver or GPU (never an error).
  virtual int visible_device_count() = 0;
  // The device-op backend on the current device, made on first use.
  virtual Backend& backend() = 0;
  // Uploads weights to the current device. Throws std::runtime_error naming the CUDA call.
  virtual std::shared_ptr<const SamplingModel> upload_sampling_model(
      const WaveNetSamplingWeights& weights) = 0;
  // streams_per_block as cuda::WaveNetSamplingBatch (0: chosen from the stream count). The batch
  // keeps `model` alive.
  virtual std::unique_ptr<SamplingBatch> make_sampling_batch(
      std::shared_ptr<const SamplingModel> model, int streams, int streams_per_block) = 0;
};

// The C function libtts_cuda.so exports: returns its CudaLibrary (never null), or throws nothing
// and returns null after writing why into `error` (size `error_size`).
using CudaLibraryEntryPoint = CudaLibrary* (*)(char* error, std::size_t error_size);
inline constexpr const char* kCudaLibraryEntryPoint = "tts_cuda_library_v1";

// Loads libtts_cuda.so on the first call (thread-safe) and returns its interface. Looks first at
// $TTS_CUDA_LIBRARY, then the build tree's copy, then the installed one. Throws
// std::invalid_argument when this build has no CUDA backend, std::runtime_error naming the paths
// tried and the loader's message when it cannot be loaded (a failed load is not retried).
CudaLibrary& cuda_library();

// True once cuda_library() has loaded the library in this process (tests: a CPU run never does).
bool cuda_library_loaded();

}  // namespace tts::kernels
