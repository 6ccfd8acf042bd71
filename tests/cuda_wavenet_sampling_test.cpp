// WaveNet sampling on the GPU (tts/vocoder/cuda_sampler.h) against the CPU sampler: the same
// weights, mel and injected uniform numbers must give the same classes, sample for sample, and the
// same logits within fp32 rounding. The two sum in different orders, so a uniform that falls within
// rounding of a class boundary may send them apart; the comparison allows that only where the CPU's
// own probabilities prove the draw was a near-tie, and stops there. Built only with the CUDA
// backend; the tests skip, saying why, without a GPU. CudaSamplingBenchmark.* measures sampling
// speed (single stream, batched, and the CPU sampler of the same build) when TTS_CUDA_BENCH=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "device_query.h"
#include "skip_without_gpu.h"
#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "tts/kernels/device.h"
#include "tts/vocoder/cuda_sampler.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/sampler.h"
#include "wavenet_sampling_kernel.h"

using tts::kernels::Matrix;
using tts::vocoder::CudaWaveNetSampler;
using tts::vocoder::SamplerOptions;
using tts::vocoder::WaveNetConfig;
using tts::vocoder::WaveNetSampler;
using tts::vocoder::WaveNetWeights;

namespace {

WaveNetConfig small_config() {
  WaveNetConfig c;
  c.layers = 6;
  c.dilation_cycle = 3;
  c.residual_channels = 16;
  c.skip_channels = 48;
  c.classes = 64;
  c.mel_channels = 12;
  c.hop_length = 40;
  return c;
}

WaveNetConfig shipped_shape() {  // the bundled voice's vocoder: L=20 R=32 S=128
  WaveNetConfig c;
  c.residual_channels = 32;
  c.skip_channels = 128;
  return c;
}

Matrix random_mel(int channels, int frames, std::uint64_t seed, float mean = 0.0f,
                  float scale = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(mean, scale);
  Matrix m(channels, frames);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

std::vector<float> random_uniforms(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> u(count);
  for (float& x : u) x = uniform(rng);
  return u;
}

// True when classes a and b are both defensible draws at `uniform` from the CPU's logits: every
// cumulative-probability boundary between them lies within 1e-4 of the target (relative to the
// total), or, for arg-max, the two logits are within 1e-4 of each other.
bool near_tie(const Eigen::Ref<const tts::kernels::Vector>& logits, float temperature,
              float uniform, int a, int b) {
  const int lo = std::min(a, b), hi = std::max(a, b);
  const double max = logits.maxCoeff();
  if (temperature <= 0.0f) return std::abs(double(logits[a]) - double(logits[b])) <= 1e-4;
  std::vector<double> p(logits.size());
  double total = 0.0;
  for (Eigen::Index k = 0; k < logits.size(); ++k)
    total += p[k] = std::exp((double(logits[k]) - max) / temperature);
  const double target = double(uniform) * total;
  double cumulative = 0.0;
  for (int k = 0; k < hi; ++k) {
    cumulative += p[k];
    if (k >= lo && std::abs(cumulative - target) > 1e-4 * total) return false;
  }
  return true;
}

struct Agreement {
  std::size_t agreed = 0;     // samples with the same class before any difference
  bool diverged = false;      // a difference, proven a near-tie, ended the comparison
  double worst_logits = 0.0;  // max over the agreed samples of ‖gpu − cpu‖ / ‖cpu‖
};

// Compares two class sequences and their logits (classes × samples) from the first sample on.
Agreement compare(const std::vector<int32_t>& cpu, const Matrix& cpu_logits,
                  const std::vector<int32_t>& gpu, const Matrix& gpu_logits,
                  const std::vector<float>& uniforms, float temperature) {
  Agreement result;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const auto column = static_cast<Eigen::Index>(i);
    const double reference = cpu_logits.col(column).cast<double>().norm();
    EXPECT_GT(reference, 0.0) << "sample " << i << ": the CPU logits are all zero";
    result.worst_logits = std::max(
        result.worst_logits,
        (gpu_logits.col(column).cast<double>() - cpu_logits.col(column).cast<double>()).norm() /
            reference);
    if (cpu[i] != gpu[i]) {
      EXPECT_TRUE(near_tie(cpu_logits.col(column), temperature, uniforms[i], cpu[i], gpu[i]))
          << "sample " << i << ": CPU drew class " << cpu[i] << ", GPU " << gpu[i] << " at uniform "
          << uniforms[i] << ", and that is no near-tie";
      result.diverged = true;
      return result;
    }
    ++result.agreed;
  }
  return result;
}

void expect_cpu_parity(const WaveNetWeights& weights, const Matrix& mel, float temperature,
                       std::size_t minimum_agreed) {
  const int A = weights.config().classes;
  WaveNetSampler cpu(weights, {7, temperature, 1});
  cpu.start(mel);
  const std::size_t n = cpu.total_samples();
  const std::vector<float> uniforms = random_uniforms(n, 11);
  std::vector<int32_t> cpu_out(n), gpu_out(n);
  Matrix cpu_logits(A, n), gpu_logits(A, n);
  ASSERT_EQ(cpu.generate(cpu_out.data(), n, uniforms.data(), &cpu_logits), n);

  CudaWaveNetSampler gpu(weights, 1, {7, temperature, 1});
  gpu.start(mel);
  ASSERT_EQ(gpu.total_samples(), n);
  // Two calls, so the queues and class carried between launches are exercised too.
  const std::size_t half = n / 2;
  ASSERT_EQ(gpu.generate(gpu_out.data(), half, uniforms.data(), &gpu_logits), half);
  ASSERT_EQ(gpu.generate(gpu_out.data() + half, n, uniforms.data() + half, &gpu_logits), n - half);
  EXPECT_EQ(gpu.generate(gpu_out.data(), n), 0u) << "the utterance is over";

  const Agreement a = compare(cpu_out, cpu_logits, gpu_out, gpu_logits, uniforms, temperature);
  std::printf("temperature %.1f: %zu of %zu classes agree%s; worst logits error %.2e\n",
              temperature, a.agreed, n, a.diverged ? " (then a near-tie)" : "", a.worst_logits);
  EXPECT_GE(a.agreed, minimum_agreed);
  EXPECT_LT(a.worst_logits, 1e-4);
  // Distinct classes: a kernel that ignored its input would draw the same few.
  std::vector<int32_t> distinct(gpu_out.begin(), gpu_out.begin() + a.agreed);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (temperature > 0.0f) {
    EXPECT_GT(distinct.size(), 8u);
  }
}

}  // namespace

TEST(CudaSampling, SmallModelMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  WaveNetWeights weights(small_config());
  weights.initialise(3);
  const Matrix mel = random_mel(12, 61, 5);  // 2,400 samples
  for (float temperature : {1.0f, 0.7f, 0.0f}) expect_cpu_parity(weights, mel, temperature, 1200);
}

TEST(CudaSampling, BundledVoiceMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  // scripts/gpu-check runs this binary away from the tree it was built in: it names the checkout.
  const char* source = std::getenv("TTS_TEST_SOURCE_DIR");
  const auto model = tts::vocoder::load_vocoder(std::string(source ? source : TTS_SOURCE_DIR) +
                                                "/voices/default/vocoder");
  const WaveNetConfig& c = model.weights->config();
  const Matrix mel = random_mel(c.mel_channels, 21, 9, -5.0f, 2.0f);  // 4,000 samples
  expect_cpu_parity(*model.weights, mel, 1.0f, 2000);
}

TEST(CudaSampling, IssueShapeMatchesCpu) {  // L=20 R=64 S=256: the widest kernel variant
  TTS_SKIP_WITHOUT_GPU();
  WaveNetWeights weights(WaveNetConfig{});
  weights.initialise(2);
  const Matrix mel = random_mel(80, 8, 4);  // 1,400 samples
  expect_cpu_parity(weights, mel, 1.0f, 700);
}

TEST(CudaSampling, SameSeedSameUniformsAsCpu) {
  TTS_SKIP_WITHOUT_GPU();
  WaveNetWeights weights(small_config());
  weights.initialise(4);
  const Matrix mel = random_mel(12, 26, 6);
  WaveNetSampler cpu(weights, {42, 1.0f, 1});
  CudaWaveNetSampler gpu(weights, 1, {42, 1.0f, 1});
  cpu.start(mel);
  gpu.start(mel);
  const std::size_t n = cpu.total_samples();
  std::vector<int32_t> a(n), b(n);
  Matrix la(weights.config().classes, n), lb(weights.config().classes, n);
  cpu.generate(a.data(), n, nullptr, &la);
  gpu.generate(b.data(), n, nullptr, &lb);
  // The uniforms both drew from seed 42, to check near-ties against.
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> u(n);
  for (float& x : u) x = uniform(rng);
  const Agreement agreement = compare(a, la, b, lb, u, 1.0f);
  EXPECT_GE(agreement.agreed, n / 2);
}

TEST(CudaSampling, BatchingDoesNotChangeAStream) {
  TTS_SKIP_WITHOUT_GPU();
  WaveNetWeights weights(small_config());
  weights.initialise(5);
  const int streams = 11;
  std::vector<Matrix> mels;
  for (int s = 0; s < streams; ++s) mels.push_back(random_mel(12, 10 + 3 * s, 100 + s));
  const std::size_t longest = static_cast<std::size_t>(mels.back().cols() - 1) * 40;
  const std::vector<float> uniforms = random_uniforms(longest * streams, 8);

  // Reference: each stream alone, in one call.
  std::vector<std::vector<int32_t>> alone(streams);
  for (int s = 0; s < streams; ++s) {
    CudaWaveNetSampler one(weights, 1, {0, 1.0f, 1});
    one.start(mels[s]);
    alone[s].resize(one.total_samples());
    // Stream s of the batch reads its uniforms at s·longest.
    one.generate(alone[s].data(), alone[s].size(), uniforms.data() + s * longest);
  }
  for (int per_block : {1, 2, 4}) {
    CudaWaveNetSampler batch(weights, streams, {0, 1.0f, 1}, per_block);
    for (int s = 0; s < streams; ++s) batch.start(s, mels[s]);
    std::vector<int32_t> out(longest * streams, -1);
    // In two calls of unequal length: streams end at different samples.
    const std::size_t first = longest / 3;
    std::vector<float> u1(first * streams), u2((longest - first) * streams);
    for (int s = 0; s < streams; ++s) {
      std::copy_n(uniforms.begin() + s * longest, first, u1.begin() + s * first);
      std::copy_n(uniforms.begin() + s * longest + first, longest - first,
                  u2.begin() + s * (longest - first));
    }
    std::vector<int32_t> o1(first * streams), o2((longest - first) * streams);
    const auto made1 = batch.generate_all(first, o1.data(), u1.data());
    const auto made2 = batch.generate_all(longest - first, o2.data(), u2.data());
    for (int s = 0; s < streams; ++s) {
      SCOPED_TRACE("streams per block " + std::to_string(per_block) + ", stream " +
                   std::to_string(s));
      ASSERT_EQ(made1[s] + made2[s], alone[s].size());
      EXPECT_EQ(batch.remaining(s), 0u);
      std::vector<int32_t> got(o1.begin() + s * first, o1.begin() + s * first + made1[s]);
      got.insert(got.end(), o2.begin() + s * (longest - first),
                 o2.begin() + s * (longest - first) + made2[s]);
      EXPECT_EQ(got, alone[s]);  // exact: a stream's sums do not depend on its batch
    }
  }
}

TEST(CudaSampling, BadArgumentsAreExceptions) {
  TTS_SKIP_WITHOUT_GPU();
  WaveNetWeights weights(small_config());
  weights.initialise(1);
  CudaWaveNetSampler sampler(weights, 2);
  EXPECT_THROW(sampler.start(2, random_mel(12, 5, 1)), std::invalid_argument);
  EXPECT_THROW(sampler.start(0, random_mel(11, 5, 1)), std::invalid_argument);
  EXPECT_THROW(sampler.start(0, random_mel(12, 1, 1)), std::invalid_argument);
  int32_t out[4];
  EXPECT_THROW(sampler.generate(out, 4), std::invalid_argument);       // two streams
  EXPECT_THROW(sampler.generate({4}, 4, out), std::invalid_argument);  // one count for two
  EXPECT_THROW(CudaWaveNetSampler(weights, 0), std::invalid_argument);
  EXPECT_THROW(CudaWaveNetSampler(weights, 4, {}, 3), std::invalid_argument);
  WaveNetConfig wide = small_config();
  wide.residual_channels = 128;  // the widest kernel takes 64
  WaveNetWeights wide_weights(wide);
  EXPECT_THROW(CudaWaveNetSampler(wide_weights, 1), std::invalid_argument);
}

// A vocoder narrower than a kernel width is sampled at that width with zero channels added
// (pad_for_cuda_sampling): R = 8 (the test voices' vocoder, tts voices create-random) and 12 on the
// split-row kernel at 16, 24 at 32, 40 on the warp-per-row kernel at 64; the CPU samples the
// original.
TEST(CudaSampling, NarrowVocodersArePaddedAndMatchCpu) {
  TTS_SKIP_WITHOUT_GPU();
  for (int residual : {8, 12, 24, 40}) {
    SCOPED_TRACE("R" + std::to_string(residual));
    WaveNetConfig c = small_config();
    c.residual_channels = residual;
    c.skip_channels = residual == 8 ? 16 : 48;
    WaveNetWeights weights(c);
    weights.initialise(static_cast<std::uint64_t>(20 + residual));
    const Matrix mel = random_mel(12, 41, 7);  // 1,600 samples
    expect_cpu_parity(weights, mel, 1.0f, 800);
    CudaWaveNetSampler sampler(weights);
    EXPECT_STREQ(sampler.kernel_name(), residual <= 32 ? "split-rows" : "warp-per-row");
  }
}

// The host-side rule of which shapes are sampled, and how much shared memory one stream takes
// (wavenet_sampling_shape.h, checked at voice load without a GPU), against the kernels' own rules.
// Host code only: runs without a GPU.
TEST(CudaSamplingShape, TheHostRuleMatchesTheKernels) {
  namespace cuda = tts::kernels::cuda;
  namespace detail = tts::kernels::cuda::detail;
  for (int r : {16, 32, 64}) {
    for (int skip = 1; skip <= cuda::kSamplingMaxSkip; ++skip) {
      ASSERT_TRUE(detail::wavenet_sampling_supports(r, skip)) << r << " " << skip;
      ASSERT_EQ(detail::wavenet_sampling_rows_supports(r, skip),
                cuda::wavenet_sampling_uses_split_rows(r))
          << r << " " << skip;
    }
    EXPECT_FALSE(detail::wavenet_sampling_supports(r, cuda::kSamplingMaxSkip + 1));
    for (int layers : {1, 20, cuda::kSamplingMaxLayers})
      for (int skip : {1, 128, 256})
        for (int classes : {2, 256, 1024}) {
          detail::WaveNetSamplingParams p;
          p.layers = layers;
          p.residual = r;
          p.skip = skip;
          p.classes = classes;
          const long long floats =
              detail::wavenet_sampling_shared_floats(layers, r, skip, classes) +
              (cuda::wavenet_sampling_uses_split_rows(r) ? detail::wavenet_sampling_bias_floats(p)
                                                         : 0);
          EXPECT_EQ(cuda::wavenet_sampling_one_stream_bytes({layers, r, skip, classes}),
                    sizeof(float) * static_cast<std::size_t>(floats))
              << layers << " " << r << " " << skip << " " << classes;
        }
  }
  for (int r : {8, 48, 128}) EXPECT_FALSE(detail::wavenet_sampling_supports(r, 16)) << r;
  EXPECT_EQ(detail::kMaxSamplingLayers, cuda::kSamplingMaxLayers);
}

// Speed of sampling, reported (never asserted): single-stream samples/s against 16 kHz real time
// and the CPU sampler of this build on this machine, and batched streams. TTS_CUDA_BENCH=1.
TEST(CudaSamplingBenchmark, Throughput) {
  TTS_SKIP_WITHOUT_GPU();
  const char* enabled = std::getenv("TTS_CUDA_BENCH");
  if (!enabled || std::string(enabled) != "1") GTEST_SKIP() << "set TTS_CUDA_BENCH=1 to run";
  std::printf("device: %s\n", tts::kernels::cuda::describe_current_device().c_str());
  struct Shape {
    const char* name;
    WaveNetConfig config;
  };
  WaveNetConfig issue = {};  // L=20 R=64 S=256, the issue's training shape
  for (const Shape& shape :
       {Shape{"L20_R32_S128", shipped_shape()}, Shape{"L20_R64_S256", issue}}) {
    const WaveNetConfig& c = shape.config;
    WaveNetWeights weights(c);
    weights.initialise(1);
    const int rate = c.sample_rate;
    const Matrix mel = random_mel(c.mel_channels, rate / c.hop_length + 1, 2);  // 1 s

    // CPU, one thread, the same build.
    WaveNetSampler cpu(weights, {3, 1.0f, 1});
    cpu.start(mel);
    std::vector<int32_t> out(cpu.total_samples());
    const auto started = std::chrono::steady_clock::now();
    cpu.generate(out.data(), out.size());
    const double cpu_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double cpu_rate = out.size() / cpu_seconds;

    // One stream: a warm-up launch, then 1 s of audio in one launch.
    CudaWaveNetSampler single(weights, 1, {3, 1.0f, 1});
    single.start(mel);
    single.generate(out.data(), 2000);
    single.start(mel);
    const auto wall_start = std::chrono::steady_clock::now();
    const std::size_t made = single.generate(out.data(), out.size());
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const double single_rate = made / single.last_kernel_seconds();
    std::printf("%s: %s kernel\n", shape.name, single.kernel_name());
    std::printf(
        "%s single stream: %.0f samples/s (kernel), %.0f (wall, with copies); %.2fx real "
        "time; CPU 1 thread %.0f samples/s; GPU/CPU %.2f\n",
        shape.name, single_rate, made / wall, single_rate / rate, cpu_rate, single_rate / cpu_rate);
    std::printf(
        "GPU_SAMPLING %s single_stream_samples_per_s=%.0f realtime_x=%.2f "
        "cpu_1thread_samples_per_s=%.0f gpu_over_cpu=%.2f\n",
        shape.name, single_rate, single_rate / rate, cpu_rate, single_rate / cpu_rate);

    // Batched: a quarter of a second of audio on each of many streams.
    const Matrix half = random_mel(c.mel_channels, rate / (4 * c.hop_length) + 1, 3);
    for (int streams : {132, 264, 528, 1056}) {
      for (int per_block : {1, 2, 4}) {
        if (streams / per_block < 33) continue;  // under a quarter of the GPU busy
        CudaWaveNetSampler batch(weights, streams, {3, 1.0f, 1}, per_block);
        for (int s = 0; s < streams; ++s) batch.start(s, half);
        const std::size_t n = batch.remaining(0);
        std::vector<int32_t> all(n * streams);
        batch.generate(std::vector<std::size_t>(streams, n), n, all.data());
        const double per_stream = n / batch.last_kernel_seconds();
        std::printf(
            "GPU_SAMPLING %s batched streams=%d per_block=%d per_stream_samples_per_s=%.0f "
            "realtime_x=%.2f total_samples_per_s=%.3g\n",
            shape.name, streams, per_block, per_stream, per_stream / rate, per_stream * streams);
      }
    }
  }
}
