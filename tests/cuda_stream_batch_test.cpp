// The GPU sampler behind a serving batch (tts/engine/stream_batch.h): generate advances each
// stream only as far as it is asked, and a stream's classes are those it has alone on the GPU,
// bit for bit, whichever streams join and leave the batch beside it (the kernel sums a stream in
// the same order whatever its batch). Built only with the CUDA backend; skips without a GPU.
// CudaStreamBatchBenchmark.* (TTS_CUDA_BENCH=1) prints the batch's throughput with n members.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "skip_without_gpu.h"
#include "tts/engine/stream_batch.h"
#include "tts/vocoder/cuda_sampler.h"
#include "tts/vocoder/sampler_interface.h"
#include "tts/vocoder/sampler_source.h"

using namespace tts;

namespace {

vocoder::WaveNetConfig small_config() {
  vocoder::WaveNetConfig c;
  c.layers = 6;
  c.dilation_cycle = 3;
  c.residual_channels = 16;
  c.skip_channels = 48;
  c.classes = 64;
  c.mel_channels = 12;
  c.hop_length = 40;
  return c;
}

kernels::Matrix random_mel(int channels, int frames, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  kernels::Matrix m(channels, frames);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

std::vector<int32_t> alone(const vocoder::WaveNetWeights& weights, const kernels::Matrix& mel,
                           std::uint64_t seed) {
  vocoder::CudaWaveNetSampler one(weights, 1);
  one.start(0, mel, seed);
  std::vector<int32_t> out(one.total_samples(0));
  EXPECT_EQ(one.generate(out.data(), out.size()), out.size());
  return out;
}

}  // namespace

TEST(CudaStreamBatch, GenerateAdvancesEachStreamAsFarAsAsked) {
  TTS_SKIP_WITHOUT_GPU();
  vocoder::WaveNetWeights weights(small_config());
  weights.initialise(3);
  const std::vector<kernels::Matrix> mels = {random_mel(12, 9, 1), random_mel(12, 14, 2),
                                             random_mel(12, 6, 3)};
  vocoder::CudaWaveNetSampler batch(weights, 3);
  for (int s = 0; s < 3; ++s) batch.start(s, mels[s], 50 + s);
  const std::size_t stride = 37;
  std::vector<std::vector<int32_t>> got(3);
  std::vector<int32_t> out(3 * stride);
  for (int round = 0; batch.remaining(0) + batch.remaining(1) + batch.remaining(2) > 0; ++round) {
    const std::vector<std::size_t> want = {round % 3 == 0 ? 0u : 37u, 11u, round % 2 ? 1u : 29u};
    const std::vector<std::size_t> before = {batch.remaining(0), batch.remaining(1),
                                             batch.remaining(2)};
    const auto made = batch.generate(want, stride, out.data());
    for (int s = 0; s < 3; ++s) {
      EXPECT_EQ(made[s], std::min(want[s], before[s]));
      EXPECT_EQ(batch.remaining(s), before[s] - made[s]);
      got[s].insert(got[s].end(), out.begin() + s * stride, out.begin() + s * stride + made[s]);
    }
  }
  for (int s = 0; s < 3; ++s) EXPECT_EQ(got[s], alone(weights, mels[s], 50 + s)) << "stream " << s;
}

TEST(CudaStreamBatch, MembersJoiningAndLeavingKeepTheirOwnClasses) {
  TTS_SKIP_WITHOUT_GPU();
  vocoder::WaveNetWeights weights(small_config());
  weights.initialise(4);
  const vocoder::SamplerSource source(weights);
  engine::StreamBatch batch(weights, source.make_multi_stream_sampler(kernels::Device::kCuda, 4),
                            64);
  const int kStreams = 9;
  std::vector<kernels::Matrix> mels;
  for (int s = 0; s < kStreams; ++s) mels.push_back(random_mel(12, 8 + 5 * s, 10 + s));
  std::vector<std::vector<int32_t>> got(kStreams);
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int s; (s = next.fetch_add(1)) < kStreams;) {
        std::unique_ptr<vocoder::Sampler> member;
        while (!(member = batch.try_join())) std::this_thread::yield();
        member->start(0, mels[s], 700 + s);
        std::vector<int32_t> part(100 + 150 * t);
        if (s == 4) {  // leaves half-way
          std::vector<int32_t> first(member->total_samples(0) / 2);
          member->generate({first.size()}, first.size(), first.data());
          continue;
        }
        for (;;) {
          const std::size_t n = member->generate({part.size()}, part.size(), part.data()).at(0);
          if (n == 0) break;
          got[s].insert(got[s].end(), part.begin(), part.begin() + static_cast<std::ptrdiff_t>(n));
        }
      }
    });
  for (auto& t : threads) t.join();
  for (int s = 0; s < kStreams; ++s)
    if (s != 4) {
      EXPECT_EQ(got[s], alone(weights, mels[s], 700 + s)) << "stream " << s;
    }
}

// The bundled voice's shape (L=20 R=32 S=128): how many members of one batch stay real time at
// 16 kHz, as `tts serve --batch auto --device cuda` measures it.
TEST(CudaStreamBatchBenchmark, RealtimeStreams) {
  TTS_SKIP_WITHOUT_GPU();
  if (!std::getenv("TTS_CUDA_BENCH")) GTEST_SKIP() << "set TTS_CUDA_BENCH=1 to run";
  vocoder::WaveNetConfig c;
  c.residual_channels = 32;
  c.skip_channels = 128;
  vocoder::WaveNetWeights weights(c);
  weights.initialise(1);
  const kernels::Matrix mel = random_mel(c.mel_channels, 200, 1);
  for (double headroom : {1.0, 1.2}) {
    const auto began = std::chrono::steady_clock::now();
    const int n = engine::realtime_streams(vocoder::SamplerSource(weights), kernels::Device::kCuda,
                                           {}, mel, 16000, headroom, 4096, 0.5);
    std::printf("GPU_BATCH R32 S128 realtime_streams(headroom %.1f) = %d (measured in %.1f s)\n",
                headroom, n,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  }
}
