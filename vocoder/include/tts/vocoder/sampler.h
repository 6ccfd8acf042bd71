// Incremental WaveNet sampling with per-layer queues (the "fast WaveNet" cache): O(layers) work per
// sample. A sampler is one synthesis stream: it owns its queues, buffers and RNG, and reads the
// shared, immutable weights. Use one sampler per thread; many samplers may share one weights
// object.
//
// With two threads the work of a sample is split in two stages that overlap: thread 0 runs the
// dilated layers and publishes each layer's gate output; thread 1 adds that layer's skip projection
// as soon as it appears, then runs the output head and samples. They meet once per layer (thread 1
// waits, thread 0 never does) and once per sample. Every sum is formed in the same order as with
// one thread, so the audio does not depend on the thread count. That pays only while each thread
// has a core to itself, so the sampler times its calls and runs them on one thread whenever that is
// faster (a busy machine), trying two stages again now and then.
//
// It is the CPU's Sampler (sampler_interface.h): one stream, whose worker thread and stage timings
// last across utterances.
//
// Given compacted weights (compact_sampling_weights.h) it multiplies by those instead of the fp32
// matrices; everything else (embedding, conditioning, biases, gates, head activations, the draw)
// is the same.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "tts/kernels/tensor.h"
#include "tts/vocoder/compact_sampling_weights.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

class WorkerTeam;
class TwoStageChooser;

class WaveNetSampler final : public Sampler {
 public:
  // `compact`, when given, must have been made from `weights`.
  WaveNetSampler(const WaveNetWeights& weights, const SamplerOptions& options = {},
                 std::shared_ptr<const CompactSamplingWeights> compact = nullptr);
  ~WaveNetSampler() override;
  WaveNetSampler(const WaveNetSampler&) = delete;
  WaveNetSampler& operator=(const WaveNetSampler&) = delete;

  // Starts an utterance conditioned on `mel` (mel_channels × frames, frames ≥ 2). Clears the
  // queues and projects the frames, off the serial path. The utterance has (frames - 1) · hop
  // samples, and extend() adds more.
  void start(const kernels::Matrix& mel);

  // Restarts the uniform generator from `seed`, as a sampler constructed with it: a stream reseeds
  // one sampler per sentence and keeps its worker thread and stage timings.
  void reseed(uint64_t seed) { rng_.seed(seed); }

  // Generates up to `max` more samples as μ-law classes into `out`; returns how many (0 when done).
  // With `uniforms` (one per sample, in [0, 1)) those numbers drive the sampling instead of the
  // RNG, so two implementations can be compared class for class. With `logits_out`, each sample's
  // logits are copied to consecutive columns (tests).
  std::size_t generate(int32_t* out, std::size_t max, const float* uniforms = nullptr,
                       kernels::Matrix* logits_out = nullptr);

  std::size_t position() const { return position_; }
  std::size_t total_samples() const { return total_; }

  // Sampler, for its one stream (0): start() is reseed() then start(mel).
  int streams() const override { return 1; }
  void start(int stream, const kernels::Matrix& mel, uint64_t seed) override;
  // want has one count: generate(out, min(want[0], stride)).
  std::vector<std::size_t> generate(const std::vector<std::size_t>& want, std::size_t stride,
                                    int32_t* out) override;
  std::size_t total_samples(int stream) const override;
  std::size_t remaining(int stream) const override;
  bool takes_frames_in_parts() const override { return true; }
  void extend(int stream, const kernels::Matrix& more) override;

  // Bytes of per-stream state (the weights are shared and not counted): the per-layer queues and
  // small buffers, which are fixed for a model, and the projected conditioning of the current
  // utterance, which grows with its length (L·2R floats per mel frame).
  std::size_t state_bytes() const;
  std::size_t conditioning_bytes() const { return conditioning_.size() * sizeof(float); }

 private:
  // Stage A: the dilated layers of the sample at `position`. After each layer it either adds that
  // layer's skip projection itself (one thread) or publishes the layer to stage B.
  void run_layers(std::size_t position, bool skip_inline, long published_base);
  // Stage B: adds layer `i`'s skip projection (its gate output) to the skip sum.
  void accumulate_skip(int i);
  // Stage B: the output head, and the next class sampled with `uniform`.
  void run_head(float uniform, float* logits_out);

  const WaveNetWeights& weights_;
  std::shared_ptr<const CompactSamplingWeights> compact_;  // null: the fp32 matrices
  SamplerOptions options_;
  std::mt19937_64 rng_;
  std::vector<int> dilations_;
  std::unique_ptr<WorkerTeam> team_;
  std::unique_ptr<TwoStageChooser> chooser_;  // with two threads: whether two stages pay
  kernels::Matrix conditioning_;              // L·2R × frames, gate biases folded in
  std::vector<kernels::Matrix> queues_;  // fp32, fp16: layer i's past inputs, R × dilation ring
  kernels::Vector h_, z_, gated_all_, skip_, hidden_, logits_, scratch_;
  std::vector<const float*> residual_bias_;  // per layer, into the weights (looked up once)
  // int8 weights: every product's input rounded once (kernels::QuantisedVector) and used by every
  // product that takes it: each layer's past inputs (instead of queues_), the present input, each
  // layer's gate output (residual and skip), and the head's two inputs.
  bool rounds_inputs_ = false;
  std::vector<std::vector<kernels::QuantisedVector>> rounded_queues_;
  kernels::QuantisedVector rounded_input_, rounded_skip_, rounded_hidden_;
  std::vector<kernels::QuantisedVector> rounded_gated_;
  std::vector<float> uniforms_;
  int32_t previous_class_ = 0;  // written by stage B, read by stage A
  // Hand-off counters within one generate() call (see WorkerTeam::wait_until).
  alignas(64) std::atomic<long> layers_published_{0};
  alignas(64) std::atomic<long> samples_published_{0};
  std::size_t position_ = 0, total_ = 0;
};

}  // namespace tts::vocoder
