// Which WaveNet vocoders the CUDA sampler (tts/kernels/cuda/wavenet_sampling.h, behind
// tts/vocoder/cuda_sampler.h) samples, as plain host code: it needs no GPU, no CUDA runtime and no
// libtts_cuda.so. So a voice is refused when it is loaded for the GPU (tts_voice_load with
// TTS_DEVICE_CUDA), not at its first synthesis, and the rule is tested on any machine.
//
// The kernels are compiled for 16, 32 and 64 residual channels. A narrower vocoder is sampled at
// the next of those widths with zero channels added (tts::vocoder::pad_for_cuda_sampling): they
// stay zero through every layer and every weight that joins them to the real channels is zero, so
// they add nothing to any sum. Skip channels are bounded by the warp-per-row kernel's registers (16
// skip rows per warp, 16 warps), layers by the kernels' per-layer tables, and one stream's
// activations (and, in the split-row kernel, every bias) must fit in a thread block's shared
// memory, whose size depends on the device.
#pragma once

#include <cstddef>
#include <string>

namespace tts::kernels::cuda {

inline constexpr int kSamplingMaxLayers = 64;
inline constexpr int kSamplingMaxResidual = 64;
inline constexpr int kSamplingMaxSkip = 256;

struct WaveNetSamplingShape {
  int layers = 0, residual = 0, skip = 0, classes = 0;
};

// The residual width the kernels sample a vocoder of `residual` channels at: the smallest of 16, 32
// and 64 that holds it; 0 outside 1..64.
constexpr int wavenet_sampling_kernel_residual(int residual) {
  return residual < 1                       ? 0
         : residual <= 16                   ? 16
         : residual <= 32                   ? 32
         : residual <= kSamplingMaxResidual ? 64
                                            : 0;
}

// Whether the split-row kernel (kernels/cuda/wavenet_sampling_rows.cu) samples at this kernel
// width; the warp-per-row kernel takes the others. For every skip count up to kSamplingMaxSkip the
// split-row groups fit in one block at widths 16 and 32 (tests/cuda_wavenet_sampling_test.cpp
// checks this against the kernel's own rule).
constexpr bool wavenet_sampling_uses_split_rows(int kernel_residual) {
  return kernel_residual == 16 || kernel_residual == 32;
}

// Floats of shared memory each stream of a block holds at kernel width r: every layer's past
// input and conditioning, two residual buffers, the gate output, the skip sum, the hidden layer and
// the logits (StreamSlots, kernels/cuda/wavenet_sampling_steps.cuh).
constexpr long long wavenet_sampling_stream_floats(int layers, int r, int skip, int classes) {
  return 3LL * layers * r + 3LL * r + 2LL * skip + classes;
}

// Floats of every bias (2S + A + (L-1)·r), which the split-row kernel holds once per block.
constexpr long long wavenet_sampling_bias_floats(int layers, int r, int skip, int classes) {
  return 2LL * skip + classes + static_cast<long long>(layers - 1) * r;
}

// Bytes of shared memory a block needs to sample one stream of `shape` (0 for a residual width
// outside 1..64). The head's weights are copied there too only when they fit beside.
inline std::size_t wavenet_sampling_one_stream_bytes(const WaveNetSamplingShape& shape) {
  const int r = wavenet_sampling_kernel_residual(shape.residual);
  if (r == 0) return 0;
  long long floats = wavenet_sampling_stream_floats(shape.layers, r, shape.skip, shape.classes);
  if (wavenet_sampling_uses_split_rows(r))
    floats += wavenet_sampling_bias_floats(shape.layers, r, shape.skip, shape.classes);
  return sizeof(float) * static_cast<std::size_t>(floats);
}

// Empty when the CUDA sampler can sample a vocoder of this shape; otherwise why not, naming the
// limit. With `shared_memory_per_block` (the device's opt-in limit per block, in bytes) it also
// checks that one stream fits in a block's shared memory; 0 leaves that out (the upload of the
// weights checks it on the device).
inline std::string wavenet_sampling_refusal(const WaveNetSamplingShape& shape,
                                            std::size_t shared_memory_per_block = 0) {
  const auto n = [](long long value) { return std::to_string(value); };
  if (shape.layers < 1 || shape.residual < 1 || shape.skip < 1 || shape.classes < 2)
    return "the CUDA sampler needs at least 1 layer, 1 residual and 1 skip channel and 2 classes; "
           "this vocoder has " +
           n(shape.layers) + ", " + n(shape.residual) + ", " + n(shape.skip) + " and " +
           n(shape.classes);
  if (shape.layers > kSamplingMaxLayers || shape.residual > kSamplingMaxResidual ||
      shape.skip > kSamplingMaxSkip)
    return "the CUDA sampler takes vocoders of up to " + n(kSamplingMaxLayers) + " layers, " +
           n(kSamplingMaxResidual) + " residual channels and " + n(kSamplingMaxSkip) +
           " skip channels; this one has " + n(shape.layers) + " layers, " + n(shape.residual) +
           " residual channels and " + n(shape.skip) + " skip channels";
  const std::size_t bytes = wavenet_sampling_one_stream_bytes(shape);
  if (shared_memory_per_block > 0 && bytes > shared_memory_per_block)
    return "the CUDA sampler needs " + n(static_cast<long long>(bytes)) +
           " bytes of shared memory per block for this vocoder (" + n(shape.layers) + " layers, " +
           n(shape.residual) + " residual channels, " + n(shape.skip) + " skip channels, " +
           n(shape.classes) + " classes); this device allows " +
           n(static_cast<long long>(shared_memory_per_block));
  return {};
}

}  // namespace tts::kernels::cuda
