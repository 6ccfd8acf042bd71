// Incremental WaveNet sampling on the GPU: one kernel launch generates a whole run of samples for
// many streams at once, without returning to the host between samples or layers.
//
// The kernel is persistent over the samples of a call: each thread block owns `streams_per_block`
// streams and loops over their samples; per sample it runs every layer (dilated convolution over
// the layer's queue of past inputs, conditioning, gate, residual), the skip sum, the output head
// and the categorical draw, meeting at block barriers only. The weights (1 MB in fp32 for
// L=20 R=32 S=128) stay in the GPU's L2 cache across samples; a block reads each weight once per
// sample for all its streams, so more streams per block trade per-stream speed for throughput.
// Two kernels keep this contract: a split-row kernel for R = 16 or 32 (each matrix row spread over
// a few lanes that hold its weights in registers; kernels/cuda/wavenet_sampling_rows.cu) and a
// warp-per-row kernel that also takes R = 64 (kernels/cuda/wavenet_sampling.cu). Which shapes
// are sampled, and the message for those that are not, is wavenet_sampling_shape.h (host code, no
// GPU needed); a vocoder narrower than a kernel width is padded by its caller
// (tts::vocoder::pad_for_cuda_sampling), so this model takes R = 16, 32 or 64 exactly.
//
// The maths is the CPU sampler's (tts::vocoder::WaveNetSampler, see its header for the tensors),
// in fp32, with the same injected uniform numbers, so the classes agree with the CPU's except
// where a uniform falls within rounding of a class boundary (tests/cuda_wavenet_sampling_test.cpp).
// This file knows nothing of the vocoder: the caller passes raw column-major weights and the
// per-layer conditioning, already projected from the mel frames with the gate biases folded in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tts/kernels/wavenet_sampling_weights.h"

namespace tts::kernels::cuda {

// The weights' host views (shared with the loaded backend's interface, cuda_library.h).
using WaveNetSamplingWeights = kernels::WaveNetSamplingWeights;

// The weights on the device, transposed to the kernel's row-major layout. Immutable; many batches
// may share one model.
class WaveNetSamplingModel {
 public:
  // Throws std::invalid_argument with wavenet_sampling_refusal's message for a shape the kernels
  // do not take (one stream's shared memory checked against the current device), and for a
  // residual width other than 16, 32 or 64.
  explicit WaveNetSamplingModel(const WaveNetSamplingWeights& weights);
  ~WaveNetSamplingModel();
  WaveNetSamplingModel(const WaveNetSamplingModel&) = delete;
  WaveNetSamplingModel& operator=(const WaveNetSamplingModel&) = delete;

  struct Device;  // internal
  const Device& device() const { return *device_; }

 private:
  std::unique_ptr<Device> device_;
};

// `streams` synthesis streams sampled together on the current device. Each stream has its own
// queues, conditioning, position and previous class.
class WaveNetSamplingBatch {
 public:
  // streams_per_block: 1, 2 or 4 (see the file comment); 0 picks 1 for up to 2 streams per
  // multiprocessor and more beyond, as far as the device's shared memory allows.
  WaveNetSamplingBatch(const WaveNetSamplingModel& model, int streams, int streams_per_block = 0);
  ~WaveNetSamplingBatch();
  WaveNetSamplingBatch(const WaveNetSamplingBatch&) = delete;
  WaveNetSamplingBatch& operator=(const WaveNetSamplingBatch&) = delete;

  // Starts an utterance on `stream`: conditioning is L·2R × frames (column-major, gate biases
  // folded in); the stream will produce `total_samples` samples (at most (frames - 1) · hop),
  // the first conditioned on the class `previous_class`. Clears the stream's queues.
  void start(int stream, const float* conditioning, int frames, std::size_t total_samples,
             int32_t previous_class);

  // Generates up to `count` more samples on every stream in one kernel launch. uniforms and out are
  // streams × count, stream-major (stream s, sample i at s·count + i); uniforms in [0, 1).
  // logits_out, when not null, receives streams × count × A logits (tests). limits, when not
  // null, holds at most how many samples each stream makes (0 leaves it where it is). Returns how
  // many samples each stream produced (fewer than count when its utterance ends). Synchronous.
  std::vector<std::size_t> generate(std::size_t count, const float* uniforms, int32_t* out,
                                    float temperature, float* logits_out = nullptr,
                                    const std::size_t* limits = nullptr);

  int streams() const { return streams_; }
  // Which kernel runs: "split-rows" (R = 16 or 32) or "warp-per-row" (R = 64 too).
  const char* kernel_name() const { return split_rows_ ? "split-rows" : "warp-per-row"; }
  int streams_per_block() const { return streams_per_block_; }
  std::size_t remaining(int stream) const;
  // Device time of the last generate()'s kernel, from CUDA events.
  double last_kernel_seconds() const { return last_kernel_seconds_; }

  struct State;  // internal

 private:
  const WaveNetSamplingModel& model_;
  int streams_ = 0, streams_per_block_ = 1;
  bool split_rows_ = false, head_in_shared_ = false;
  std::unique_ptr<State> state_;
  double last_kernel_seconds_ = 0.0;
};

}  // namespace tts::kernels::cuda
