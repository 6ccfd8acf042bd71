// Incremental WaveNet sampling with per-layer queues (the "fast WaveNet" cache): O(layers) work per
// sample. A sampler is one synthesis stream: it owns its queues, buffers and RNG, and reads the
// shared, immutable weights. Use one sampler per thread; many samplers may share one weights object.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "tts/kernels/tensor.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

struct SamplerOptions {
  uint64_t seed = 0;
  float temperature = 1.0f;  // 0 = arg-max (deterministic, usually buzzy)
  int threads = 1;           // threads that share each sample's work; the audio does not depend on it
};

class WorkerTeam;

class WaveNetSampler {
 public:
  WaveNetSampler(const WaveNetWeights& weights, const SamplerOptions& options = {});
  ~WaveNetSampler();
  WaveNetSampler(const WaveNetSampler&) = delete;
  WaveNetSampler& operator=(const WaveNetSampler&) = delete;

  // Starts an utterance conditioned on `mel` (mel_channels × frames, frames ≥ 2). Clears the
  // queues and projects all frames at once, off the serial path. The utterance has
  // (frames - 1) · hop samples.
  void start(const kernels::Matrix& mel);

  // Generates up to `max` more samples as μ-law classes into `out`; returns how many (0 when done).
  // With `uniforms` (one per sample, in [0, 1)) those numbers drive the sampling instead of the RNG,
  // so two implementations can be compared class for class. With `logits_out`, each sample's logits
  // are copied to consecutive columns (tests).
  std::size_t generate(int32_t* out, std::size_t max, const float* uniforms = nullptr,
                       kernels::Matrix* logits_out = nullptr);

  std::size_t position() const { return position_; }
  std::size_t total_samples() const { return total_; }

  // Bytes of per-stream state (the weights are shared and not counted): the per-layer queues and
  // small buffers, which are fixed for a model, and the projected conditioning of the current
  // utterance, which grows with its length (L·2R floats per mel frame).
  std::size_t state_bytes() const;
  std::size_t conditioning_bytes() const { return conditioning_.size() * sizeof(float); }

 private:
  // Rows of each product that one thread of the team computes.
  struct Share {
    Eigen::Index channel_begin, channels;  // of R (and the matching gate rows R + …)
    Eigen::Index skip_begin, skips;        // of S
    Eigen::Index class_begin, classes;     // of A
  };
  // Thread `t`'s part of one sample. Every thread samples the class itself from the same logits
  // and uniform number, which saves a barrier and gives all of them the same answer.
  void step(int t, std::size_t position, float uniform, float* logits_out);

  const WaveNetWeights& weights_;
  SamplerOptions options_;
  std::mt19937_64 rng_;
  std::vector<int> dilations_;
  std::vector<Share> shares_;
  std::unique_ptr<WorkerTeam> team_;
  kernels::Matrix conditioning_;           // L·2R × frames, gate biases folded in
  std::vector<kernels::Matrix> queues_;    // layer i: R × dilation, a ring of past inputs
  kernels::Vector h_, z_, gated_all_, skip_, hidden_, logits_;
  std::vector<kernels::Vector> scratch_;   // per thread, for the softmax
  std::vector<int32_t> sampled_;           // per thread: the class it sampled
  std::vector<float> uniforms_;
  std::size_t position_ = 0, total_ = 0;
};

}  // namespace tts::vocoder
