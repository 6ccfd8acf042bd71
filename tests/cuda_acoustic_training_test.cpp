// The acoustic model's pass (network.h, written once against the device-op interface) on the CUDA
// backend against the same pass on the CPU backend (itself checked against finite differences in
// acoustic_gradient_test.cpp): the same weights and batch must give the same losses, predicted
// frames, log-durations, predicted token pitch and energy and gradients, tensor by tensor, within
// fp32 rounding — with given durations, with durations from alignment search (run on the host
// under the GPU's prior means), with dropout, and with both mel losses; with the variance adaptor
// (pitch and energy predictors, bucket embeddings) at two sizes and without it; with the speaker
// embedding of a model of two speakers (tokens of each speaker in one batch); within bf16
// rounding with bf16 GEMMs; bit for bit from one GPU run to the next; and several optimiser steps
// must follow the CPU's. Errors are normalised
// (‖gpu − cpu‖ / ‖cpu‖, after asserting ‖cpu‖ > 0), so a zero or sign-flipped gradient fails.
// Built only with the CUDA backend; the tests skip, saying why, without a GPU.
// CudaAcousticBenchmark.* times a training step (TTS_CUDA_BENCH=1).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu_parity.h"
#include "skip_without_gpu.h"
#include "tiny_acoustic.h"
#include "tts/acoustic/alignment_targets.h"
#include "tts/acoustic/network.h"
#include "tts/acoustic/training_pass.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/ops/backends.h"
#include "tts/train/optimizer_step.h"

using tts::acoustic::AcousticBatch;
using tts::acoustic::AcousticConfig;
using tts::acoustic::AcousticLosses;
using tts::acoustic::AcousticLossSettings;
using tts::acoustic::AcousticPass;
using tts::acoustic::AcousticWeights;
using tts::frontend::SymbolTiming;
using tts::kernels::GemmPrecision;
using tts::kernels::Matrix;
using tts::kernels::ParameterSet;

namespace {

using tts::testing::normalised_error;

// The pass on the GPU: the one definition, given the CUDA backend.
AcousticPass gpu_pass(const AcousticWeights& weights, const AcousticLossSettings& settings = {},
                      GemmPrecision precision = GemmPrecision::kFp32) {
  return AcousticPass(weights, settings, tts::kernels::cuda_backend(), precision);
}

// Every feature of the real shape at a small size: residual and non-residual blocks (the duration
// and variance predictors' first blocks change width), kernels of 3 and 5, three alignment states,
// and the variance adaptor, whose corpus statistics spread random_acoustic_batch's contours (log F0
// about N(5.3, 0.4²), log energy about N(-1, 3²)) over the embeddings' buckets: the normalised
// energy is about N(0, 2²), so some frames clamp to the end buckets (weight 0 or 1).
AcousticConfig test_config() {
  AcousticConfig c;
  c.symbols = 12;
  c.channels = 24;
  c.encoder_blocks = 2;
  c.encoder_kernel = 5;
  c.duration_channels = 16;
  c.duration_kernel = 3;
  c.decoder_channels = 32;
  c.decoder_blocks = 2;
  c.decoder_kernel = 5;
  c.n_mels = 10;
  c.alignment_states = 3;
  c.mel_mean = -2.0f;
  c.mel_std = 1.5f;
  c.pitch_energy = true;
  c.variance_channels = 20;
  c.variance_kernel = 3;
  c.variance_bins = 16;
  c.pitch_mean = 5.3f;
  c.pitch_std = 0.4f;
  c.energy_mean = -1.0f;
  c.energy_std = 1.5f;
  return c;
}

AcousticConfig without_variance(AcousticConfig c) {
  c.pitch_energy = false;
  return c;
}

// Pads, skippable and timeless symbols, as the real table has (ids 0-2), the rest phones.
std::vector<SymbolTiming> test_timings(int symbols) {
  std::vector<SymbolTiming> t(static_cast<std::size_t>(symbols), SymbolTiming::kSounds);
  t[0] = SymbolTiming::kMayPause;
  t[1] = SymbolTiming::kClausePause;
  t[2] = SymbolTiming::kNoTime;
  return t;
}

struct Case {
  AcousticConfig config = test_config();
  std::vector<int> token_counts = {40, 9, 57, 23};
  bool l1 = true;
  float dropout = 0.0f;
  bool searched = false;  // durations from alignment search instead of given
  // With config.speakers > 1, utterance u is speaker u % speakers.
  GemmPrecision precision = GemmPrecision::kFp32;
  double loss_bound = 1e-5, bound = 1e-4;
};

Case fp32_case(bool l1, float dropout, bool searched,
               const AcousticConfig& config = test_config()) {
  Case k;
  k.config = config;
  k.l1 = l1;
  k.dropout = dropout;
  k.searched = searched;
  return k;
}

// The tiny config of the CPU's gradient tests, its variance adaptor included.
AcousticConfig tiny_config() { return tts::testing::tiny_acoustic_config(); }

// Runs both passes on one batch and compares losses, outputs and every gradient tensor.
void expect_pass_matches_cpu(const Case& k) {
  const AcousticConfig& config = k.config;
  const bool variance = config.pitch_energy;
  AcousticWeights weights(config);
  ASSERT_EQ(weights.layout().has_variance, variance);
  weights.initialise(5);
  // Also gives the variance embeddings, which start at zero, values to carry.
  tts::testing::perturb(weights.parameters(), 6);
  std::vector<int> durations;
  AcousticBatch batch = tts::testing::random_acoustic_batch(config, k.token_counts, 7, durations);
  if (config.speakers > 1) {
    ASSERT_GE(weights.layout().speaker_embedding, 0);
    for (std::size_t u = 0; u < k.token_counts.size(); ++u)
      batch.speakers.push_back(static_cast<int>(u) % config.speakers);
  }
  if (!variance) {  // a model without the adaptor needs no contours
    batch.log_f0.resize(0, 0);
    batch.log_energy.resize(0, 0);
  } else if (k.token_counts.size() > 1) {
    // The second utterance has no voiced frame: its log F0 is NaN throughout (frame_variances
    // reads it as pitch_mean).
    batch.log_f0.middleCols(batch.frame_lengths[0], batch.frame_lengths[1])
        .setConstant(std::numeric_limits<float>::quiet_NaN());
  }
  AcousticLossSettings settings;
  settings.l1_mel = k.l1;
  settings.dropout = k.dropout;
  settings.prior_weight = 0.7f;
  settings.duration_weight = 1.3f;
  settings.pitch_weight = 0.3f;
  settings.energy_weight = 0.2f;
  if (k.searched) {
    settings.symbol_timings = test_timings(config.symbols);
    durations.clear();
  }
  const std::uint64_t dropout_seed = 12;

  AcousticPass cpu(weights, settings);
  ParameterSet cpu_grads = weights.parameters().zeros_like();
  const AcousticLosses cpu_losses = cpu.forward(batch, durations, dropout_seed);
  cpu.backward(cpu_grads);

  AcousticPass gpu(weights, settings, tts::kernels::cuda_backend(), k.precision);
  ParameterSet gpu_grads = weights.parameters().zeros_like();
  const AcousticLosses gpu_losses = gpu.forward(batch, durations, dropout_seed);
  gpu.backward(gpu_grads);

  ASSERT_EQ(gpu.durations(), cpu.durations()) << "the alignment differs";
  if (k.searched) {  // the search kept the timeless symbols out
    for (std::size_t i = 0; i < batch.ids.size(); ++i) {
      if (batch.ids[i] == 2) {
        EXPECT_EQ(cpu.durations()[i], 0);
      }
    }
  }
  std::vector<std::pair<const char*, std::pair<double, double>>> losses = {
      {"mel", {gpu_losses.mel, cpu_losses.mel}},
      {"prior", {gpu_losses.prior, cpu_losses.prior}},
      {"duration", {gpu_losses.duration, cpu_losses.duration}},
      {"total", {gpu_losses.total, cpu_losses.total}}};
  if (variance) {
    losses.push_back({"pitch", {gpu_losses.pitch, cpu_losses.pitch}});
    losses.push_back({"energy", {gpu_losses.energy, cpu_losses.energy}});
  } else {
    EXPECT_EQ(cpu_losses.pitch, 0.0);
    EXPECT_EQ(cpu_losses.energy, 0.0);
    EXPECT_EQ(gpu_losses.pitch, 0.0);
    EXPECT_EQ(gpu_losses.energy, 0.0);
  }
  for (const auto& [name, values] : losses) {
    ASSERT_TRUE(std::isfinite(values.first)) << name;
    ASSERT_TRUE(std::isfinite(values.second)) << name;
    ASSERT_GT(values.second, 0.0) << name;
    EXPECT_LT(std::abs(values.first - values.second) / values.second, k.loss_bound)
        << name << ": gpu " << values.first << " cpu " << values.second;
  }
  double norm = 0.0;
  const Matrix mel = gpu.predicted_mel(), log_durations = gpu.log_durations();
  ASSERT_EQ(mel.rows(), cpu.predicted_mel().rows());
  ASSERT_EQ(mel.cols(), cpu.predicted_mel().cols());
  ASSERT_EQ(log_durations.cols(), cpu.log_durations().cols());
  const double mel_error =
      normalised_error(mel.data(), cpu.predicted_mel().data(), mel.size(), &norm);
  ASSERT_GT(norm, 0.0);
  EXPECT_LT(mel_error, k.bound) << "predicted frames";
  const double duration_error = normalised_error(log_durations.data(), cpu.log_durations().data(),
                                                 log_durations.size(), &norm);
  ASSERT_GT(norm, 0.0);
  EXPECT_LT(duration_error, k.bound) << "log-durations";
  const std::pair<const char*, std::pair<Matrix, Matrix>> variances[] = {
      {"pitch", {gpu.predicted_pitch(), cpu.predicted_pitch()}},
      {"energy", {gpu.predicted_energy(), cpu.predicted_energy()}}};
  for (const auto& [name, values] : variances) {
    const Matrix& g = values.first;
    const Matrix& c = values.second;
    if (!variance) {
      EXPECT_EQ(g.size(), 0) << name;
      EXPECT_EQ(c.size(), 0) << name;
      continue;
    }
    ASSERT_EQ(g.rows(), 1) << name;
    ASSERT_EQ(g.cols(), static_cast<Eigen::Index>(batch.ids.size())) << name;
    ASSERT_EQ(c.cols(), g.cols()) << name;
    const double error = normalised_error(g.data(), c.data(), g.size(), &norm);
    ASSERT_GT(norm, 0.0) << name;
    EXPECT_LT(error, k.bound) << "predicted token " << name;
  }
  double worst = 0.0;
  std::string worst_name;
  int variance_tensors = 0;
  for (const auto& e : weights.parameters().entries()) {
    variance_tensors += e.name.rfind("pitch.", 0) == 0 || e.name.rfind("energy.", 0) == 0;
    const double error =
        normalised_error(gpu_grads.data() + e.offset, cpu_grads.data() + e.offset, e.size(), &norm);
    ASSERT_GT(norm, 0.0) << e.name << ": the CPU gradient is zero";
    EXPECT_LT(error, k.bound) << e.name;
    if (error > worst) worst = error, worst_name = e.name;
  }
  // Each predictor's two blocks (4 tensors each), output and bias, and embedding.
  EXPECT_EQ(variance_tensors, variance ? 22 : 0);
  EXPECT_EQ(weights.layout().speaker_embedding >= 0, config.speakers > 1);
  std::printf(
      "%s pass (%d channels, %s, %s, dropout %.1f, %s durations): total loss %.6f (cpu %.6f), "
      "pitch %.6f (cpu %.6f), energy %.6f (cpu %.6f), frames error %.2e, worst gradient error "
      "%.2e (%s)\n",
      tts::kernels::to_string(k.precision), config.channels,
      variance ? "variance adaptor" : "no variance adaptor", k.l1 ? "L1" : "L2", k.dropout,
      k.searched ? "searched" : "given", gpu_losses.total, cpu_losses.total, gpu_losses.pitch,
      cpu_losses.pitch, gpu_losses.energy, cpu_losses.energy, mel_error, worst, worst_name.c_str());
}

}  // namespace

TEST(CudaAcousticTraining, Fp32PassMatchesCpuWithGivenDurations) {
  TTS_SKIP_WITHOUT_GPU();
  expect_pass_matches_cpu(fp32_case(true, 0.0f, false));
  expect_pass_matches_cpu(fp32_case(false, 0.0f, false));
}

TEST(CudaAcousticTraining, Fp32PassMatchesCpuWithDropout) {
  TTS_SKIP_WITHOUT_GPU();
  expect_pass_matches_cpu(fp32_case(true, 0.3f, false));
}

TEST(CudaAcousticTraining, Fp32PassMatchesCpuWithSearchedDurations) {
  TTS_SKIP_WITHOUT_GPU();
  expect_pass_matches_cpu(fp32_case(true, 0.0f, true));
}

// A model of acoustic format_version 2 (config.pitch_energy false): no predictors, no embeddings,
// no contours in the batch.
TEST(CudaAcousticTraining, Fp32PassMatchesCpuWithoutVarianceAdaptor) {
  TTS_SKIP_WITHOUT_GPU();
  const AcousticConfig config = without_variance(test_config());
  expect_pass_matches_cpu(fp32_case(true, 0.0f, false, config));
  expect_pass_matches_cpu(fp32_case(false, 0.3f, false, config));
  expect_pass_matches_cpu(fp32_case(true, 0.0f, true, config));
}

// The variance adaptor at the CPU gradient tests' tiny size (tests/support/tiny_acoustic.h: 6
// buckets, predictors 5 wide over 4 channels), with and without dropout and alignment search.
TEST(CudaAcousticTraining, Fp32PassMatchesCpuAtTinySize) {
  TTS_SKIP_WITHOUT_GPU();
  const std::vector<int> token_counts = {7, 3, 11, 5};
  for (const Case& base :
       {fp32_case(true, 0.0f, false, tiny_config()), fp32_case(false, 0.0f, false, tiny_config()),
        fp32_case(true, 0.3f, false, tiny_config()), fp32_case(true, 0.0f, true, tiny_config())}) {
    Case k = base;
    k.token_counts = token_counts;
    expect_pass_matches_cpu(k);
  }
}

// A model of two speakers: the speaker vectors added to the encoder's output, and their gradient
// (speaker_embedding, which the loop above checks with every tensor), with the variance adaptor,
// dropout and alignment search, and without the adaptor. The batch alternates the speakers.
TEST(CudaAcousticTraining, Fp32PassMatchesCpuWithTwoSpeakers) {
  TTS_SKIP_WITHOUT_GPU();
  AcousticConfig config = test_config();
  config.speakers = 2;
  expect_pass_matches_cpu(fp32_case(true, 0.0f, false, config));
  expect_pass_matches_cpu(fp32_case(false, 0.3f, true, config));
  expect_pass_matches_cpu(fp32_case(true, 0.0f, false, without_variance(config)));
}

// bf16 keeps 8 bits of mantissa; as for the vocoder (cuda_vocoder_training_test.cpp), a gradient
// that is the small remainder of many terms of both signs loses more than that, so the bound is
// loose, but a sign flip or a wrong tensor gives 1 or more.
TEST(CudaAcousticTraining, Bf16PassIsCloseToCpu) {
  TTS_SKIP_WITHOUT_GPU();
  Case k = fp32_case(false, 0.0f, false);
  k.precision = GemmPrecision::kBf16;
  k.loss_bound = 1e-2;
  k.bound = 0.2;
  expect_pass_matches_cpu(k);
}

// fp16 keeps an 11-bit significand, 8 times finer than bf16's 8 bits: the bounds are a quarter of
// bf16's (not yet measured on a GPU), still far below the 1 of a sign flip or a wrong tensor.
TEST(CudaAcousticTraining, Fp16PassIsCloseToCpu) {
  TTS_SKIP_WITHOUT_GPU();
  Case k = fp32_case(false, 0.0f, false);
  k.precision = GemmPrecision::kFp16;
  k.loss_bound = 2.5e-3;
  k.bound = 0.05;
  expect_pass_matches_cpu(k);
}

// No atomics anywhere in the pass: two passes over the same weights and batch give the same bits.
TEST(CudaAcousticTraining, GradientsRepeatBitForBit) {
  TTS_SKIP_WITHOUT_GPU();
  const AcousticConfig config = test_config();
  AcousticWeights weights(config);
  weights.initialise(8);
  tts::testing::perturb(weights.parameters(), 9);
  std::vector<int> durations;
  const AcousticBatch batch = tts::testing::random_acoustic_batch(config, {30, 50}, 10, durations);
  AcousticLossSettings settings;
  settings.dropout = 0.2f;
  std::vector<std::vector<float>> runs;
  std::vector<double> losses;
  for (int run = 0; run < 2; ++run) {
    AcousticPass pass = gpu_pass(weights, settings);
    ParameterSet grads = weights.parameters().zeros_like();
    losses.push_back(pass.forward(batch, durations, 3).total);
    pass.backward(grads);
    runs.emplace_back(grads.data(), grads.data() + grads.size());
  }
  EXPECT_EQ(losses[0], losses[1]);
  std::size_t differing = 0, nonzero = 0;
  for (std::size_t k = 0; k < runs[0].size(); ++k) {
    differing += runs[0][k] != runs[1][k];
    nonzero += runs[0][k] != 0.0f;
  }
  EXPECT_EQ(differing, 0u) << "of " << runs[0].size() << " gradient values";
  EXPECT_GT(nonzero, runs[0].size() / 2);  // two all-zero gradients would repeat too
}

// The trainer's loop (forward with alignment search, backward, the CPU's optimiser step, new
// weights uploaded by the next forward) for several steps on both devices, through the factory the
// trainer uses.
TEST(CudaAcousticTraining, OptimiserStepsFollowTheCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const AcousticConfig config = test_config();
  AcousticWeights cpu_model(config), gpu_model(config);
  cpu_model.initialise(11);
  gpu_model.initialise(11);
  AcousticLossSettings settings;
  settings.symbol_timings = test_timings(config.symbols);
  auto run = [&](AcousticWeights& model, tts::kernels::Device device) {
    const auto pass = tts::acoustic::make_acoustic_training_pass(
        model, settings, {device, tts::kernels::GemmPrecision::kFp32});
    ParameterSet ema = model.parameters(), m = model.parameters().zeros_like(),
                 v = model.parameters().zeros_like(), grads = model.parameters().zeros_like();
    std::int64_t step = 0;
    std::vector<double> losses;
    for (int k = 0; k < 6; ++k) {
      std::vector<int> durations;
      const AcousticBatch batch =
          tts::testing::random_acoustic_batch(config, {20, 35}, 100 + k, durations);
      // Two flat-start steps, then alignment search, as the trainer does.
      if (k >= 2) durations.clear();
      losses.push_back(pass->forward(batch, durations, k, {}).total);
      grads.set_zero();
      pass->backward(grads);
      tts::train::OptimizerStepSettings step_settings;
      step_settings.adam.learning_rate = 1e-3f;
      tts::train::apply_optimizer_step({model.parameters(), ema, m, v, step}, grads, step_settings);
    }
    return losses;
  };
  const auto cpu_losses = run(cpu_model, tts::kernels::Device::kCpu);
  const auto gpu_losses = run(gpu_model, tts::kernels::Device::kCuda);
  AcousticWeights initial(config);
  initial.initialise(11);
  tts::testing::expect_steps_follow_cpu(cpu_losses, gpu_losses, cpu_model.parameters(),
                                        gpu_model.parameters(), initial.parameters());
}

TEST(CudaAcousticTraining, MisuseIsAnException) {
  TTS_SKIP_WITHOUT_GPU();
  const AcousticConfig config = test_config();
  AcousticWeights weights(config);
  weights.initialise(1);
  AcousticPass pass = gpu_pass(weights);
  ParameterSet grads = weights.parameters().zeros_like();
  EXPECT_THROW(pass.backward(grads), std::logic_error);
  std::vector<int> durations;
  AcousticBatch batch = tts::testing::random_acoustic_batch(config, {6, 4}, 3, durations);
  batch.ids[3] = config.symbols;  // outside the table
  EXPECT_THROW(pass.forward(batch, durations), std::invalid_argument);
  batch.ids[3] = 4;
  std::vector<int> wrong = durations;
  wrong[0] += 1;  // no longer sums to the frames
  EXPECT_THROW(pass.forward(batch, wrong), std::invalid_argument);
  AcousticBatch no_contours = batch;  // the variance adaptor needs them
  no_contours.log_energy.resize(0, 0);
  EXPECT_THROW(pass.forward(no_contours, durations), std::invalid_argument);
  pass.forward(batch, durations);
  ParameterSet other;
  other.add("x", 3);
  EXPECT_THROW(pass.backward(other), std::invalid_argument);
}

// Frames per second of one training step (forward and backward with given durations, gradients
// on the host) for the bundled voice's acoustic model on a batch of 8 sentence-sized utterances,
// fp32 and bf16 GEMMs, against the CPU pass of the same build on every core of this machine; and
// the step with alignment search on the host, as the trainer runs it.
TEST(CudaAcousticBenchmark, StepThroughput) {
  TTS_SKIP_WITHOUT_GPU();
  if (!std::getenv("TTS_CUDA_BENCH")) GTEST_SKIP() << "set TTS_CUDA_BENCH=1 to run";
  using Clock = std::chrono::steady_clock;
  // The bundled voice's architecture (scripts/train-acoustic-asterisk): 4 encoder blocks of 192
  // channels, the default duration predictor (2 blocks of 128), 6 decoder blocks of 256, 80 mels;
  // and the default variance adaptor (predictors of 2 blocks of 128, 128 buckets), which the
  // bundled voice predates.
  AcousticConfig config;
  config.symbols = 338;
  config.encoder_blocks = 4;
  config.channels = 192;
  config.decoder_channels = 256;
  config.decoder_blocks = 6;
  AcousticWeights weights(config);
  weights.initialise(1);
  // 8 utterances of 60-100 tokens at 1-11 frames (about 6 on average): ~4,000 frames.
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int> tokens_of(60, 100);
  std::vector<int> token_counts(8), durations;
  for (int& count : token_counts) count = tokens_of(rng);
  const AcousticBatch batch =
      tts::testing::random_acoustic_batch(config, token_counts, 3, durations, 11);
  const int total = static_cast<int>(batch.mel.cols());
  ParameterSet grads = weights.parameters().zeros_like();
  AcousticLossSettings settings;
  auto time_steps = [&](tts::acoustic::AcousticTrainingPass& pass, int steps, bool search) {
    const std::vector<int> given = search ? std::vector<int>{} : durations;
    pass.forward(batch, given, 0, {});  // warm-up: allocations, cuBLAS's choice of kernels
    pass.backward(grads);
    const auto start = Clock::now();
    for (int i = 0; i < steps; ++i) {
      pass.forward(batch, given, 0, {});
      pass.backward(grads);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return steps * double(total) / seconds;
  };
  const auto fp32 = tts::acoustic::make_acoustic_training_pass(
      weights, settings, {tts::kernels::Device::kCuda, tts::kernels::GemmPrecision::kFp32});
  const auto bf16 = tts::acoustic::make_acoustic_training_pass(
      weights, settings, {tts::kernels::Device::kCuda, tts::kernels::GemmPrecision::kBf16});
  const double gpu32 = time_steps(*fp32, 20, false), gpu16 = time_steps(*bf16, 20, false);
  const double gpu32_search = time_steps(*fp32, 10, true);
  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  tts::kernels::set_gemm_threads(threads);
  const auto cpu = tts::acoustic::make_acoustic_training_pass(
      weights, settings, {tts::kernels::Device::kCpu, tts::kernels::GemmPrecision::kFp32});
  const double cpu32 = time_steps(*cpu, 3, false), cpu32_search = time_steps(*cpu, 2, true);
  std::printf(
      "GPU_ACOUSTIC frames=%d parameters=%zu fp32_frames_per_s=%.4g bf16_frames_per_s=%.4g "
      "fp32_with_search_frames_per_s=%.4g cpu_%dthreads_frames_per_s=%.4g "
      "cpu_with_search_frames_per_s=%.4g gpu_fp32_over_cpu=%.1f gpu_with_search_over_cpu=%.1f\n",
      total, weights.parameters().size(), gpu32, gpu16, gpu32_search, threads, cpu32, cpu32_search,
      gpu32 / cpu32, gpu32_search / cpu32_search);
  EXPECT_GT(gpu32, 0.0);
}
