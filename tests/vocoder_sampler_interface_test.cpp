// The sampler interface (tts/vocoder/sampler_interface.h) on the CPU: make_sampler's choice by
// device, a start() that reseeds (as the pipeline uses it, one sampler for every sentence), one
// stream's generate_all as its generate, and the stream count enforced. The GPU sampler's side is
// in cuda_wavenet_sampling_test.cpp, which needs a GPU.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tiny_wavenet.h"
#include "tts/kernels/cuda_library.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/weights.h"

using namespace tts;

namespace {

struct Fixture {
  vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights{config};
  kernels::Matrix first, second;
  Fixture() {
    weights.initialise(5);
    first = kernels::Matrix::Random(config.mel_channels, 21);
    second = kernels::Matrix::Random(config.mel_channels, 17);
  }
};

std::vector<int32_t> all_of(vocoder::WaveNetSampler& sampler) {
  std::vector<int32_t> out(sampler.total_samples());
  sampler.generate(out.data(), out.size());
  return out;
}

}  // namespace

TEST(SamplerInterface, OnTheCpuItIsTheCpuSamplerAndNeverAsksForGpuWeights) {
  Fixture f;
  bool asked = false;
  const std::unique_ptr<vocoder::Sampler> sampler =
      vocoder::make_sampler(f.weights, kernels::Device::kCpu, {}, [&] {
        asked = true;
        return std::shared_ptr<const kernels::SamplingModel>();
      });
  EXPECT_NE(dynamic_cast<vocoder::WaveNetSampler*>(sampler.get()), nullptr);
  EXPECT_EQ(sampler->streams(), 1);
  EXPECT_FALSE(asked);
  EXPECT_FALSE(kernels::cuda_library_loaded());
}

TEST(SamplerInterface, OnCudaItSamplesWithTheWeightsItIsGiven) {
  Fixture f;
  struct Asked {};  // thrown before any GPU is touched
  EXPECT_THROW(vocoder::make_sampler(
                   f.weights, kernels::Device::kCuda, {},
                   []() -> std::shared_ptr<const kernels::SamplingModel> { throw Asked{}; }),
               Asked);
}

// Restarted with a seed after another utterance, half made, on two threads: exactly what a
// sampler made fresh with that seed gives.
TEST(SamplerInterface, StartReseedsAndRestarts) {
  Fixture f;
  const std::unique_ptr<vocoder::Sampler> sampler =
      vocoder::make_sampler(f.weights, kernels::Device::kCpu, {1, 1.0f, 2});
  sampler->start(0, f.first, 7);
  std::vector<int32_t> discard(sampler->total_samples(0) / 2);
  ASSERT_EQ(sampler->generate(discard.data(), discard.size()), discard.size());
  EXPECT_EQ(sampler->remaining(0), sampler->total_samples(0) - discard.size());

  sampler->start(0, f.second, 99);
  const std::size_t total = static_cast<std::size_t>(f.second.cols() - 1) * f.config.hop_length;
  ASSERT_EQ(sampler->total_samples(0), total);
  EXPECT_EQ(sampler->remaining(0), total);
  std::vector<int32_t> restarted(total);
  EXPECT_EQ(sampler->generate(restarted.data(), total + 5), total);
  EXPECT_EQ(sampler->remaining(0), 0u);
  EXPECT_EQ(sampler->generate(restarted.data(), 5), 0u) << "the utterance is over";

  vocoder::WaveNetSampler fresh(f.weights, {99, 1.0f, 1});
  fresh.start(f.second);
  EXPECT_EQ(restarted, all_of(fresh));
}

TEST(SamplerInterface, OneStreamsGenerateAllIsItsGenerate) {
  Fixture f;
  const std::unique_ptr<vocoder::Sampler> sampler =
      vocoder::make_sampler(f.weights, kernels::Device::kCpu, {3, 0.8f, 1});
  sampler->start(0, f.first, 3);
  std::vector<int32_t> in_runs;
  int32_t run[7];
  for (;;) {
    const std::vector<std::size_t> made = sampler->generate_all(7, run);
    ASSERT_EQ(made.size(), 1u);
    if (made[0] == 0) break;
    in_runs.insert(in_runs.end(), run, run + made[0]);
  }
  vocoder::WaveNetSampler whole(f.weights, {3, 0.8f, 1});
  whole.start(f.first);
  EXPECT_EQ(in_runs, all_of(whole));
}

TEST(SamplerInterface, TheCpuSamplerHasOneStream) {
  Fixture f;
  const std::unique_ptr<vocoder::Sampler> sampler =
      vocoder::make_sampler(f.weights, kernels::Device::kCpu);
  EXPECT_THROW(sampler->start(1, f.first, 0), std::out_of_range);
  EXPECT_THROW(sampler->total_samples(1), std::out_of_range);
  EXPECT_THROW(sampler->remaining(-1), std::out_of_range);
}
