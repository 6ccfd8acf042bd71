// The incremental sampler (per-layer queues) must compute exactly the network that training
// computes: feed its own samples back through the teacher-forced pass and compare.
#include <gtest/gtest.h>

#include <random>

#include "tiny_wavenet.h"
#include "tts/kernels/mulaw.h"
#include "tts/kernels/softmax.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/teacher_forced.h"

using namespace tts;

namespace {

struct Comparison {
  double logit_error;    // ||incremental - parallel|| / ||parallel|| over all logits
  int class_mismatches;  // classes sampled from the parallel logits with the same uniforms
  std::size_t samples;
};

Comparison compare(const vocoder::WaveNetConfig& config, int frames, uint64_t seed) {
  vocoder::WaveNetWeights weights(config);
  weights.initialise(seed);
  std::mt19937_64 rng(seed + 1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  kernels::Matrix mel(config.mel_channels, frames);
  for (Eigen::Index k = 0; k < mel.size(); ++k) mel.data()[k] = normal(rng);

  vocoder::WaveNetSampler sampler(weights, {seed, 1.0f});
  sampler.start(mel);
  const std::size_t n = sampler.total_samples();
  std::vector<float> uniforms(n);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (float& u : uniforms) u = uniform(rng);
  std::vector<int32_t> classes(n);
  kernels::Matrix incremental_logits(config.classes, static_cast<Eigen::Index>(n));
  EXPECT_EQ(sampler.generate(classes.data(), n, uniforms.data(), &incremental_logits), n);

  const vocoder::Batch batch = tts::testing::sampled_batch(config, classes, mel);
  vocoder::TeacherForcedPass pass(weights);
  pass.forward(batch);
  const kernels::Matrix& parallel = pass.logits();

  Comparison result{};
  result.samples = n;
  result.logit_error = (incremental_logits - parallel).norm() / parallel.norm();
  kernels::Vector scratch(config.classes);
  for (std::size_t t = 0; t < n; ++t) {
    const int32_t again = kernels::softmax_sample(parallel.col(static_cast<Eigen::Index>(t)), 1.0f,
                                                  uniforms[t], scratch);
    result.class_mismatches += again != classes[t];
  }
  return result;
}

}  // namespace

TEST(VocoderIncremental, TinyNetworkMatchesTeacherForcing) {
  Comparison c = compare(tts::testing::tiny_config(), 40, 5);
  EXPECT_EQ(c.samples, 39u * 4u);
  EXPECT_LT(c.logit_error, 1e-5);
  EXPECT_EQ(c.class_mismatches, 0);
}

TEST(VocoderIncremental, RealisticShapeMatchesTeacherForcing) {
  vocoder::WaveNetConfig config;  // the default shape, shortened so the test takes a second
  config.layers = 10;
  config.residual_channels = 32;
  config.skip_channels = 64;
  config.hop_length = 200;
  Comparison c = compare(config, 11, 9);  // 2,000 samples: past the 1,024-sample receptive field
  EXPECT_EQ(c.samples, 2000u);
  EXPECT_LT(c.logit_error, 1e-5);
  EXPECT_EQ(c.class_mismatches, 0);
}

TEST(VocoderIncremental, SameSeedSameAudioDifferentSeedDifferentAudio) {
  const vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(3);
  kernels::Matrix mel = kernels::Matrix::Random(config.mel_channels, 30);
  auto run = [&](uint64_t seed) {
    vocoder::WaveNetSampler sampler(weights, {seed, 1.0f});
    sampler.start(mel);
    std::vector<int32_t> out(sampler.total_samples());
    sampler.generate(out.data(), out.size());
    return out;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

// A stream keeps one sampler for all its sentences (engine/pipeline.cpp, through
// vocoder::SamplerSource): reseeded and restarted after another utterance, two threads and half a
// sentence in, it must give exactly what a sampler made fresh with that seed gives.
TEST(VocoderIncremental, ReseededSamplerMatchesAFreshOne) {
  const vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(5);
  const kernels::Matrix first = kernels::Matrix::Random(config.mel_channels, 21);
  const kernels::Matrix second = kernels::Matrix::Random(config.mel_channels, 17);
  vocoder::WaveNetSampler reused(weights, {1, 1.0f, 2});
  reused.start(first);
  std::vector<int32_t> discard(reused.total_samples() / 2);
  reused.generate(discard.data(), discard.size());  // stopped mid-utterance, queues not empty
  reused.reseed(99);
  reused.start(second);
  std::vector<int32_t> a(reused.total_samples());
  EXPECT_EQ(reused.generate(a.data(), a.size()), a.size());
  vocoder::WaveNetSampler fresh(weights, {99, 1.0f, 1});
  fresh.start(second);
  std::vector<int32_t> b(fresh.total_samples());
  fresh.generate(b.data(), b.size());
  EXPECT_EQ(a, b);
  reused.reseed(98);  // and the seed matters: not a sampler that ignores it
  reused.start(second);
  reused.generate(a.data(), a.size());
  EXPECT_NE(a, b);
}

TEST(VocoderIncremental, GeneratesInChunksLikeAllAtOnce) {
  const vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights(config);
  weights.initialise(4);
  kernels::Matrix mel = kernels::Matrix::Random(config.mel_channels, 25);
  vocoder::WaveNetSampler whole(weights, {8, 0.9f}), chunked(weights, {8, 0.9f});
  whole.start(mel);
  chunked.start(mel);
  std::vector<int32_t> a(whole.total_samples()), b;
  whole.generate(a.data(), a.size());
  int32_t chunk[7];
  while (std::size_t made = chunked.generate(chunk, 7)) b.insert(b.end(), chunk, chunk + made);
  EXPECT_EQ(a, b);
  EXPECT_EQ(chunked.generate(chunk, 7), 0u);
}

TEST(VocoderIncremental, RejectsMelOfWrongShape) {
  vocoder::WaveNetWeights weights(tts::testing::tiny_config());
  vocoder::WaveNetSampler sampler(weights);
  EXPECT_THROW(sampler.start(kernels::Matrix::Zero(3, 10)), std::invalid_argument);
  EXPECT_THROW(sampler.start(kernels::Matrix::Zero(2, 1)), std::invalid_argument);
}

TEST(VocoderIncremental, ThreadCountDoesNotChangeTheAudio) {
  vocoder::WaveNetConfig config;  // shares of 16 rows (R=64, S=128) and of odd sizes (3 threads)
  config.layers = 6;
  config.residual_channels = 64;
  config.skip_channels = 128;
  config.hop_length = 50;
  vocoder::WaveNetWeights weights(config);
  weights.initialise(12);
  const kernels::Matrix mel = kernels::Matrix::Random(config.mel_channels, 8);
  std::vector<std::vector<int32_t>> runs;
  std::vector<kernels::Matrix> logits;
  for (int threads : {1, 2, 3}) {
    vocoder::WaveNetSampler sampler(weights, {21, 1.0f, threads});
    sampler.start(mel);
    std::vector<int32_t> out(sampler.total_samples());
    logits.emplace_back(config.classes, static_cast<Eigen::Index>(out.size()));
    // In uneven chunks, so the team starts and stops many times.
    std::size_t done = 0;
    for (std::size_t chunk = 1; done < out.size(); chunk = chunk * 3 % 97 + 1)
      done += sampler.generate(out.data() + done, chunk, nullptr, &logits.back());
    runs.push_back(out);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
  EXPECT_EQ((logits[0] - logits[1]).norm(), 0.0f);
  EXPECT_EQ((logits[0] - logits[2]).norm(), 0.0f);
}
