// The CPU sampler over compacted weights (tts/vocoder/compact_sampling_weights.h): it computes the
// network the fp32 weights define within the compaction's rounding (its own samples fed back
// through the fp32 teacher-forced pass), two threads and many streams give it the same classes,
// and the bytes it reports are the bytes it holds.
#include <gtest/gtest.h>

#include <random>

#include "tiny_wavenet.h"
#include "tts/kernels/mulaw.h"
#include "tts/vocoder/compact_sampling_weights.h"
#include "tts/vocoder/multi_stream_sampler.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_source.h"
#include "tts/vocoder/teacher_forced.h"

using namespace tts;
using kernels::WeightPrecision;

namespace {

vocoder::WaveNetConfig realistic_config() {
  vocoder::WaveNetConfig config;  // the default shape, shortened so the test takes a second
  config.layers = 10;
  config.residual_channels = 32;
  config.skip_channels = 64;
  config.hop_length = 200;
  return config;
}

kernels::Matrix random_mel(const vocoder::WaveNetConfig& config, int frames, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  kernels::Matrix mel(config.mel_channels, frames);
  for (Eigen::Index k = 0; k < mel.size(); ++k) mel.data()[k] = normal(rng);
  return mel;
}

// ||sampler's logits − fp32 teacher-forced logits|| / ||fp32 logits|| over the sampler's own
// samples.
double logit_error(const vocoder::WaveNetWeights& weights, WeightPrecision precision) {
  const vocoder::WaveNetConfig& config = weights.config();
  const kernels::Matrix mel = random_mel(config, 11, 4);
  const auto compact = precision == WeightPrecision::kFp32
                           ? nullptr
                           : vocoder::compact_sampling_weights(weights, precision);
  vocoder::WaveNetSampler sampler(weights, {7, 1.0f}, compact);
  sampler.start(mel);
  const std::size_t n = sampler.total_samples();
  std::vector<int32_t> classes(n);
  kernels::Matrix logits(config.classes, static_cast<Eigen::Index>(n));
  EXPECT_EQ(sampler.generate(classes.data(), n, nullptr, &logits), n);

  const vocoder::Batch batch = tts::testing::sampled_batch(config, classes, mel);
  vocoder::TeacherForcedPass pass(weights);
  pass.forward(batch);
  return (logits - pass.logits()).norm() / pass.logits().norm();
}

TEST(VocoderCompactSampling, ComputesTheFp32NetworkWithinTheCompactionsRounding) {
  vocoder::WaveNetWeights weights(realistic_config());
  weights.initialise(9);
  const double fp32 = logit_error(weights, WeightPrecision::kFp32);
  const double fp16 = logit_error(weights, WeightPrecision::kFp16);
  const double int8 = logit_error(weights, WeightPrecision::kInt8);
  EXPECT_LT(fp32, 1e-5);
  // fp16 rounds each weight by up to 2^-11 of itself, int8 by up to half a row's step: the
  // logits move by about that much, and no more; and they do move (the compacted weights are the
  // ones multiplied by).
  EXPECT_GT(fp16, 1e-5);
  EXPECT_LT(fp16, 3e-3);
  EXPECT_GT(int8, fp16);
  EXPECT_LT(int8, 5e-2);
}

TEST(VocoderCompactSampling, ThreadsAndStreamsDoNotChangeTheClasses) {
  const vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(3);
  const kernels::Matrix mel = random_mel(config, 30, 5);
  for (const WeightPrecision precision : {WeightPrecision::kFp16, WeightPrecision::kInt8}) {
    const vocoder::SamplerSource source(weights, precision);
    ASSERT_NE(source.compact_weights(), nullptr);
    EXPECT_EQ(source.cpu_precision(), precision);
    auto run = [&](int threads) {
      vocoder::WaveNetSampler sampler(weights, {11, 1.0f, threads}, source.compact_weights());
      sampler.start(mel);
      std::vector<int32_t> out(sampler.total_samples());
      sampler.generate(out.data(), out.size());
      return out;
    };
    const std::vector<int32_t> one = run(1);
    EXPECT_EQ(run(2), one);
    const auto batch = source.make_multi_stream_sampler(kernels::Device::kCpu, 2, {11, 1.0f, 2});
    batch->start(1, mel, 11);
    std::vector<int32_t> out(2 * one.size());
    const std::vector<std::size_t> made = batch->generate({0, one.size()}, one.size(), out.data());
    ASSERT_EQ(made[1], one.size());
    EXPECT_EQ(std::vector<int32_t>(out.begin() + static_cast<long>(one.size()), out.end()), one);
    // An fp32 source holds no compacted copy: its samplers are plain ones.
    vocoder::WaveNetSampler fp32(weights, {11, 1.0f, 1});
    fp32.start(mel);
    std::vector<int32_t> plain(fp32.total_samples());
    fp32.generate(plain.data(), plain.size());
    const vocoder::SamplerSource fp32_source(weights);
    EXPECT_EQ(fp32_source.compact_weights(), nullptr);
    auto from_source = fp32_source.make_sampler(kernels::Device::kCpu, {11, 1.0f, 1});
    from_source->start(0, mel, 11);
    std::vector<int32_t> again(plain.size());
    from_source->generate({again.size()}, again.size(), again.data());
    EXPECT_EQ(again, plain);
  }
}

TEST(VocoderCompactSampling, BytesPerSampleAreTheBytesHeld) {
  for (const vocoder::WaveNetConfig& config : {tts::testing::tiny_config(), realistic_config()}) {
    vocoder::WaveNetWeights weights(config);
    weights.initialise(1);
    for (const WeightPrecision precision : {WeightPrecision::kFp16, WeightPrecision::kInt8})
      EXPECT_EQ(vocoder::compact_sampling_weights(weights, precision)->bytes(),
                vocoder::sampling_weight_bytes_per_sample(config, precision));
    EXPECT_EQ(vocoder::sampling_weight_bytes_per_sample(config, WeightPrecision::kFp32),
              2 * vocoder::sampling_weight_bytes_per_sample(config, WeightPrecision::kFp16));
  }
  // The default shape (L = 20, R = 64, S = 256, 256 classes): 3.46 MB of fp32 per sample.
  EXPECT_EQ(vocoder::sampling_weight_bytes_per_sample({}, WeightPrecision::kFp32), 3457024u);
}

}  // namespace
