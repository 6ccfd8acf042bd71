// The sampler interface (tts/vocoder/sampler_interface.h) and where samplers come from
// (tts/vocoder/sampler_source.h), on the CPU: the source's choice by device, which never loads the
// CUDA library for the CPU; a start() that reseeds (as the pipeline uses it, one sampler for every
// sentence); one stream advanced in runs making its whole utterance; and the stream count enforced.
// The GPU sampler's side is in cuda_wavenet_sampling_test.cpp, which needs a GPU, and the refusal
// of a vocoder the GPU cannot sample in vocoder_cuda_shape_test.cpp.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tiny_wavenet.h"
#include "tts/kernels/cuda_library.h"
#include "tts/vocoder/multi_stream_sampler.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/sampler_source.h"
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

TEST(SamplerSource, OnTheCpuItIsTheCpuSamplerAndNeverLoadsCuda) {
  Fixture f;
  const vocoder::SamplerSource source(f.weights);
  EXPECT_EQ(source.refusal(kernels::Device::kCpu), "");
  source.prepare(kernels::Device::kCpu);
  const std::unique_ptr<vocoder::Sampler> one = source.make_sampler(kernels::Device::kCpu);
  EXPECT_NE(dynamic_cast<vocoder::WaveNetSampler*>(one.get()), nullptr);
  EXPECT_EQ(one->streams(), 1);
  const std::unique_ptr<vocoder::Sampler> many =
      source.make_multi_stream_sampler(kernels::Device::kCpu, 3);
  EXPECT_NE(dynamic_cast<vocoder::MultiStreamSampler*>(many.get()), nullptr);
  EXPECT_EQ(many->streams(), 3);
  EXPECT_FALSE(kernels::cuda_library_loaded());
}

// Without the CUDA backend, a GPU sampler is refused, saying so, before anything is loaded.
TEST(SamplerSource, WithoutTheCudaBackendTheGpuIsRefused) {
  if (kernels::cuda_backend_built()) GTEST_SKIP() << "this build has the CUDA backend";
  Fixture f;
  const vocoder::SamplerSource source(f.weights);
  EXPECT_EQ(source.refusal(kernels::Device::kCuda), "") << "the tiny vocoder's shape is fine";
  EXPECT_THROW(source.make_sampler(kernels::Device::kCuda), std::invalid_argument);
  EXPECT_THROW(source.make_multi_stream_sampler(kernels::Device::kCuda, 2), std::invalid_argument);
  EXPECT_THROW(source.prepare(kernels::Device::kCuda), std::invalid_argument);
  EXPECT_FALSE(kernels::cuda_library_loaded());
}

// Restarted with a seed after another utterance, half made, on two threads: exactly what a
// sampler made fresh with that seed gives.
TEST(SamplerInterface, StartReseedsAndRestarts) {
  Fixture f;
  const vocoder::SamplerSource source(f.weights);
  const std::unique_ptr<vocoder::Sampler> sampler =
      source.make_sampler(kernels::Device::kCpu, {1, 1.0f, 2});
  sampler->start(0, f.first, 7);
  std::vector<int32_t> discard(sampler->total_samples(0) / 2);
  ASSERT_EQ(sampler->generate({discard.size()}, discard.size(), discard.data()),
            std::vector<std::size_t>{discard.size()});
  EXPECT_EQ(sampler->remaining(0), sampler->total_samples(0) - discard.size());

  sampler->start(0, f.second, 99);
  const std::size_t total = static_cast<std::size_t>(f.second.cols() - 1) * f.config.hop_length;
  ASSERT_EQ(sampler->total_samples(0), total);
  EXPECT_EQ(sampler->remaining(0), total);
  std::vector<int32_t> restarted(total);
  EXPECT_EQ(sampler->generate({total + 5}, total, restarted.data()),
            std::vector<std::size_t>{total})
      << "a stream makes at most the stride";
  EXPECT_EQ(sampler->remaining(0), 0u);
  EXPECT_EQ(sampler->generate({5}, 5, restarted.data()), std::vector<std::size_t>{0})
      << "the utterance is over";

  vocoder::WaveNetSampler fresh(f.weights, {99, 1.0f, 1});
  fresh.start(f.second);
  EXPECT_EQ(restarted, all_of(fresh));
}

TEST(SamplerInterface, OneStreamAdvancedInRunsMakesItsWholeUtterance) {
  Fixture f;
  const vocoder::SamplerSource source(f.weights);
  const std::unique_ptr<vocoder::Sampler> sampler =
      source.make_sampler(kernels::Device::kCpu, {3, 0.8f, 1});
  sampler->start(0, f.first, 3);
  std::vector<int32_t> in_runs;
  int32_t run[7];
  for (;;) {
    const std::vector<std::size_t> made = sampler->generate({7}, 7, run);
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
  const vocoder::SamplerSource source(f.weights);
  const std::unique_ptr<vocoder::Sampler> sampler = source.make_sampler(kernels::Device::kCpu);
  EXPECT_THROW(sampler->start(1, f.first, 0), std::out_of_range);
  EXPECT_THROW(sampler->total_samples(1), std::out_of_range);
  EXPECT_THROW(sampler->remaining(-1), std::out_of_range);
  sampler->start(0, f.first, 0);
  int32_t out[8];
  EXPECT_THROW(sampler->generate({4, 4}, 4, out), std::invalid_argument);
}

// A stream started on a sentence's first frames and given the rest as they come (the pipeline's
// first audio waits for the first frames only) makes the audio of a start on all of them, bit for
// bit, however the frames are split and whether one or two threads sample it. Between the parts
// it makes nothing and says nothing remains, until the next part comes.
TEST(SamplerInterface, FramesGivenInPartsMakeTheWholeSentencesAudio) {
  Fixture f;
  const vocoder::SamplerSource source(f.weights);
  for (int threads : {1, 2}) {
    vocoder::WaveNetSampler whole(f.weights, {4, 0.9f, threads});
    whole.start(f.first);
    const std::vector<int32_t> expected = all_of(whole);
    for (const std::vector<int>& split : {std::vector<int>{2, 19}, {5, 7, 9}, {20, 1}}) {
      const std::unique_ptr<vocoder::Sampler> sampler =
          source.make_sampler(kernels::Device::kCpu, {0, 0.9f, threads});
      ASSERT_TRUE(sampler->takes_frames_in_parts());
      std::vector<int32_t> made;
      int32_t run[300];
      int from = 0;
      for (int count : split) {
        const kernels::Matrix part = f.first.middleCols(from, count);
        if (from == 0)
          sampler->start(0, part, 4);
        else
          sampler->extend(0, part);
        from += count;
        for (std::size_t n; (n = sampler->generate({300}, 300, run).front()) > 0;)
          made.insert(made.end(), run, run + n);
        EXPECT_EQ(sampler->remaining(0), 0u);
        EXPECT_EQ(sampler->total_samples(0),
                  static_cast<std::size_t>(from - 1) * f.config.hop_length);
      }
      EXPECT_EQ(made, expected) << threads << " threads, " << split.size() << " parts";
    }
  }
}

TEST(SamplerInterface, ManyStreamsTakeFramesInPartsToo) {
  Fixture f;
  vocoder::MultiStreamSampler streams(f.weights, 2, {0, 1.0f, 2});
  ASSERT_TRUE(streams.takes_frames_in_parts());
  streams.start(1, f.second.leftCols(6), 8);
  streams.extend(1, f.second.rightCols(11));
  vocoder::WaveNetSampler whole(f.weights, {8, 1.0f, 1});
  whole.start(f.second);
  const std::size_t total = whole.total_samples();
  std::vector<int32_t> out(2 * total);
  const std::vector<std::size_t> made = streams.generate({0, total}, total, out.data());
  EXPECT_EQ(made[1], total);
  EXPECT_EQ(std::vector<int32_t>(out.begin() + static_cast<std::ptrdiff_t>(total), out.end()),
            all_of(whole));
}

TEST(SamplerInterface, FramesOfTheWrongShapeAreRefusedWhenAdded) {
  Fixture f;
  vocoder::WaveNetSampler sampler(f.weights);
  sampler.start(f.first);
  EXPECT_THROW(sampler.extend(0, kernels::Matrix(f.config.mel_channels, 0)), std::invalid_argument);
  EXPECT_THROW(sampler.extend(0, kernels::Matrix::Zero(f.config.mel_channels + 1, 3)),
               std::invalid_argument);
  EXPECT_THROW(sampler.extend(1, f.second), std::out_of_range);
  EXPECT_EQ(sampler.total_samples(), 20u * f.config.hop_length);  // nothing was added
}
