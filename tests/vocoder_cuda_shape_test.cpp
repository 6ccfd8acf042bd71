// Which vocoders the CUDA sampler takes (tts/kernels/cuda/wavenet_sampling_shape.h), and the
// padding that lets it sample a vocoder narrower than its kernels (pad_for_cuda_sampling), on the
// CPU: both are host code, so this runs in every build, with or without a GPU or the CUDA backend.
// The padded vocoder, sampled by the CPU sampler, must give the original's logits and classes: the
// GPU then samples the padded weights with kernels already checked against the CPU at their widths
// (tests/cuda_wavenet_sampling_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "tts/kernels/cuda_library.h"
#include "tts/vocoder/conditioning.h"
#include "tts/vocoder/cuda_sampler.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_source.h"

using tts::kernels::Matrix;
using tts::kernels::cuda::wavenet_sampling_kernel_residual;
using tts::kernels::cuda::wavenet_sampling_one_stream_bytes;
using tts::kernels::cuda::wavenet_sampling_refusal;
using tts::kernels::cuda::WaveNetSamplingShape;
using tts::vocoder::WaveNetConfig;
using tts::vocoder::WaveNetSampler;
using tts::vocoder::WaveNetWeights;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

WaveNetConfig narrow_config(int residual) {
  WaveNetConfig c;
  c.layers = 5;
  c.dilation_cycle = 3;
  c.residual_channels = residual;
  c.skip_channels = 24;
  c.classes = 64;
  c.mel_channels = 12;
  c.hop_length = 40;
  return c;
}

Matrix random_mel(int channels, int frames, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(channels, frames);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

}  // namespace

// Every vocoder the trainer makes (residual 8 to 128, skip up to 512) is either taken or refused
// with a message that names the limit and the vocoder's own numbers.
TEST(CudaSamplingShape, TakesUpTo64Residual256SkipAnd64LayersAndNamesTheLimitOtherwise) {
  for (int residual : {1, 8, 12, 16, 24, 32, 40, 48, 64, 65, 96, 128})
    for (int skip : {1, 16, 128, 256, 257, 512})
      for (int layers : {1, 20, 64, 65}) {
        const WaveNetSamplingShape shape{layers, residual, skip, 256};
        const std::string why = wavenet_sampling_refusal(shape);
        SCOPED_TRACE("L" + std::to_string(layers) + " R" + std::to_string(residual) + " S" +
                     std::to_string(skip) + ": " + why);
        const bool taken = residual <= 64 && skip <= 256 && layers <= 64;
        EXPECT_EQ(why.empty(), taken);
        if (taken) {
          // A shape of the bundled voice's size fits in any device's default 48 KiB.
          if (layers <= 20 && residual <= 32) {
            EXPECT_LE(wavenet_sampling_one_stream_bytes(shape), 48u * 1024u);
          }
          continue;
        }
        EXPECT_TRUE(contains(why, "up to 64 layers, 64 residual channels and 256 skip channels"));
        EXPECT_TRUE(contains(why, "this one has " + std::to_string(layers) + " layers, " +
                                      std::to_string(residual) + " residual channels and " +
                                      std::to_string(skip) + " skip channels"));
      }
  EXPECT_FALSE(wavenet_sampling_refusal({0, 8, 16, 256}).empty());
  EXPECT_FALSE(wavenet_sampling_refusal({4, 8, 16, 1}).empty());
}

TEST(CudaSamplingShape, NarrowVocodersRunAtTheNextKernelWidth) {
  EXPECT_EQ(wavenet_sampling_kernel_residual(0), 0);
  EXPECT_EQ(wavenet_sampling_kernel_residual(1), 16);
  EXPECT_EQ(wavenet_sampling_kernel_residual(8), 16);
  EXPECT_EQ(wavenet_sampling_kernel_residual(16), 16);
  EXPECT_EQ(wavenet_sampling_kernel_residual(17), 32);
  EXPECT_EQ(wavenet_sampling_kernel_residual(32), 32);
  EXPECT_EQ(wavenet_sampling_kernel_residual(33), 64);
  EXPECT_EQ(wavenet_sampling_kernel_residual(64), 64);
  EXPECT_EQ(wavenet_sampling_kernel_residual(65), 0);
  EXPECT_EQ(wavenet_sampling_kernel_residual(128), 0);
}

// With the device's shared memory per block, a vocoder whose one stream does not fit is refused,
// naming the bytes it needs and the device's limit.
TEST(CudaSamplingShape, OneStreamMustFitTheDevicesSharedMemory) {
  const WaveNetSamplingShape bundled{20, 32, 128, 256};
  const std::size_t h200 = 227 * 1024;
  EXPECT_EQ(wavenet_sampling_refusal(bundled, h200), "");
  // Split-row width: activations 3LR + 3R + 2S + A, and the biases 2S + A + (L-1)R.
  EXPECT_EQ(wavenet_sampling_one_stream_bytes(bundled),
            4u * (3 * 20 * 32 + 3 * 32 + 2 * 128 + 256 + 2 * 128 + 256 + 19 * 32));
  // Warp-per-row width: the activations only.
  EXPECT_EQ(wavenet_sampling_one_stream_bytes({20, 64, 256, 256}),
            4u * (3 * 20 * 64 + 3 * 64 + 2 * 256 + 256));
  // A narrow vocoder needs the shared memory of its kernel width.
  EXPECT_EQ(wavenet_sampling_one_stream_bytes({20, 8, 16, 256}),
            wavenet_sampling_one_stream_bytes({20, 16, 16, 256}));
  const WaveNetSamplingShape many_classes{20, 32, 128, 65536};
  const std::string why = wavenet_sampling_refusal(many_classes, h200);
  EXPECT_TRUE(contains(why, "bytes of shared memory")) << why;
  EXPECT_TRUE(contains(why, "65536 classes")) << why;
  EXPECT_TRUE(contains(why, "allows " + std::to_string(h200))) << why;
  EXPECT_EQ(wavenet_sampling_refusal(many_classes), "") << "the limit is the device's";
}

// The padded vocoder holds the original's tensors at their places and zeros elsewhere.
TEST(CudaSamplingPadding, AddsZeroChannelsAndKeepsEveryWeight) {
  WaveNetWeights weights(narrow_config(8));
  weights.initialise(3);
  weights.parameters().vector(weights.layout().dilated_bias).setRandom();
  for (int index : weights.layout().residual_bias) weights.parameters().vector(index).setRandom();
  const WaveNetWeights padded = tts::vocoder::pad_for_cuda_sampling(weights);
  const auto& a = weights.parameters();
  const auto& b = padded.parameters();
  const auto& from = weights.layout();
  const auto& to = padded.layout();
  ASSERT_EQ(padded.config().residual_channels, 16);
  ASSERT_EQ(b.entries().size(), a.entries().size());
  // Nothing is lost, nothing is made up: the same sum of absolute values in every tensor.
  for (std::size_t i = 0; i < a.entries().size(); ++i) {
    const auto& entry = a.entries()[i];
    EXPECT_EQ(b.entries()[i].name, entry.name);
    const double before = a.matrix(static_cast<int>(i)).cwiseAbs().cast<double>().sum();
    const double after = b.matrix(static_cast<int>(i)).cwiseAbs().cast<double>().sum();
    EXPECT_NEAR(before, after, 1e-9 * before) << entry.name;
  }
  // Filter rows, then gate rows, each at the start of its half; past, then present columns.
  const auto d0 = a.matrix(from.dilated[1]);
  const auto p0 = b.matrix(to.dilated[1]);
  EXPECT_EQ(p0(3, 5), d0(3, 5));           // filter row, past column
  EXPECT_EQ(p0(16 + 3, 5), d0(8 + 3, 5));  // gate row
  EXPECT_EQ(p0(3, 16 + 5), d0(3, 8 + 5));  // present column
  EXPECT_EQ(p0(10, 2), 0.0f);
  EXPECT_EQ(p0(2, 10), 0.0f);
  EXPECT_EQ(b.vector(to.dilated_bias)(2 * 16 + 16 + 7), a.vector(from.dilated_bias)(2 * 8 + 8 + 7));
  EXPECT_EQ(b.matrix(to.skip)(4, 16 + 7), a.matrix(from.skip)(4, 8 + 7));
  EXPECT_EQ(b.matrix(to.skip)(4, 16 + 8), 0.0f);
  // A vocoder at a kernel width is copied as it is.
  WaveNetWeights exact(narrow_config(32));
  exact.initialise(4);
  const WaveNetWeights copy = tts::vocoder::pad_for_cuda_sampling(exact);
  ASSERT_EQ(copy.parameters().size(), exact.parameters().size());
  EXPECT_TRUE(std::equal(exact.parameters().data(),
                         exact.parameters().data() + exact.parameters().size(),
                         copy.parameters().data()));
}

// The padded vocoder computes what the original does: the same logits within rounding, hence the
// same classes with the same uniform numbers (until a near-tie, which these sizes do not meet).
// Its conditioning is the original's, padded (what CudaWaveNetSampler::start uploads).
TEST(CudaSamplingPadding, ThePaddedVocoderSamplesAsTheOriginal) {
  for (int residual : {8, 24, 40}) {
    SCOPED_TRACE("R" + std::to_string(residual));
    WaveNetWeights weights(narrow_config(residual));
    weights.initialise(static_cast<std::uint64_t>(residual));
    weights.parameters().vector(weights.layout().dilated_bias).setRandom();
    const WaveNetWeights padded = tts::vocoder::pad_for_cuda_sampling(weights);
    EXPECT_EQ(padded.config().residual_channels, wavenet_sampling_kernel_residual(residual));
    const Matrix mel = random_mel(12, 31, 5);

    const Matrix conditioning = tts::vocoder::project_conditioning(weights, mel);
    const Matrix padded_conditioning =
        tts::vocoder::pad_conditioning_for_cuda_sampling(weights.config(), conditioning);
    const Matrix reference = tts::vocoder::project_conditioning(padded, mel);
    ASSERT_EQ(padded_conditioning.rows(), reference.rows());
    EXPECT_LE((padded_conditioning - reference).cwiseAbs().maxCoeff(),
              1e-5f * (1.0f + reference.cwiseAbs().maxCoeff()));

    const int A = weights.config().classes;
    WaveNetSampler original(weights, {9, 1.0f, 1});
    WaveNetSampler wide(padded, {9, 1.0f, 1});
    original.start(mel);
    wide.start(mel);
    const std::size_t n = original.total_samples();
    ASSERT_EQ(wide.total_samples(), n);
    std::vector<int32_t> a(n), b(n);
    Matrix la(A, n), lb(A, n);
    original.generate(a.data(), n, nullptr, &la);
    wide.generate(b.data(), n, nullptr, &lb);
    std::size_t same = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < n && a[i] == b[i]; ++i, ++same) {
      const auto column = static_cast<Eigen::Index>(i);
      worst = std::max(worst, static_cast<double>((la.col(column) - lb.col(column)).norm() /
                                                  la.col(column).norm()));
    }
    EXPECT_EQ(same, n);
    EXPECT_LT(worst, 1e-5);
    std::vector<int32_t> distinct(a);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    EXPECT_GT(distinct.size(), 8u) << "a sampler that ignored its input would draw a few classes";
  }
}

// A vocoder the GPU cannot sample is refused by every way into the CUDA sampler with the same
// message, before CUDA is loaded (so on any machine).
TEST(CudaSamplingPadding, WhatTheGpuCannotSampleIsRefusedBeforeCudaIsTouched) {
  const bool loaded_before = tts::kernels::cuda_library_loaded();
  WaveNetConfig wide = narrow_config(8);
  wide.residual_channels = 128;
  wide.skip_channels = 512;
  const WaveNetWeights weights(wide);
  const std::string expected = wavenet_sampling_refusal({wide.layers, 128, 512, wide.classes});
  ASSERT_FALSE(expected.empty());
  const tts::vocoder::SamplerSource source(weights);
  auto message_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no std::invalid_argument";
  };
  for (const std::string& got :
       {message_of([&] { tts::vocoder::pad_for_cuda_sampling(weights); }),
        message_of([&] { tts::vocoder::upload_for_cuda_sampling(weights); }),
        message_of([&] { tts::vocoder::CudaWaveNetSampler sampler(weights); }),
        message_of([&] { source.make_sampler(tts::kernels::Device::kCuda); }),
        message_of([&] { source.make_multi_stream_sampler(tts::kernels::Device::kCuda, 2); }),
        message_of([&] { source.prepare(tts::kernels::Device::kCuda); })}) {
    EXPECT_TRUE(contains(got, expected)) << got;
    EXPECT_TRUE(contains(got, "CPU")) << got;
  }
  EXPECT_EQ(source.refusal(tts::kernels::Device::kCuda), expected);
  EXPECT_EQ(source.refusal(tts::kernels::Device::kCpu), "");
  EXPECT_EQ(tts::kernels::cuda_library_loaded(), loaded_before);
}
