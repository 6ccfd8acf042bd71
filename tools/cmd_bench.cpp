// `tts bench vocoder`: measured speed of the WaveNet on this machine, as one machine-readable line.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>

#include "commands.h"
#include "device_options.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/peak_flops.h"
#include "tts/kernels/read_bandwidth.h"
#include "tts/train/optimizer_step.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/training_pass.h"
#include "weights_option.h"

namespace tts::cli {

namespace {

struct BenchOptions {
  std::string config_file;
  double seconds = 1.0;  // of audio to generate
  int threads = 1;
  int train_batch = 4;
  int train_length = 8000;
  int train_steps = 2;
  kernels::WeightPrecision weights = kernels::default_weight_precision();  // of the sampling
  kernels::DeviceChoice train;  // where the timed training step runs
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

vocoder::WaveNetConfig load_config(const std::string& path) {
  if (path.empty()) return {};
  nlohmann::json j = read_config_file(path);
  if (j.contains("wavenet")) j = j.at("wavenet");
  return j.get<vocoder::WaveNetConfig>();
}

void bench_vocoder(const BenchOptions& o) {
  const vocoder::WaveNetConfig config = load_config(o.config_file);
  vocoder::WaveNetWeights weights(config);
  weights.initialise(1);
  std::mt19937_64 rng(2);
  std::normal_distribution<float> normal(0.0f, 1.0f);

  // Incremental sampling.
  const int frames = static_cast<int>(o.seconds * config.sample_rate / config.hop_length) + 1;
  kernels::Matrix mel(config.mel_channels, frames);
  for (Eigen::Index k = 0; k < mel.size(); ++k) mel.data()[k] = normal(rng);
  const auto compact = o.weights == kernels::WeightPrecision::kFp32
                           ? nullptr
                           : vocoder::compact_sampling_weights(weights, o.weights);
  vocoder::WaveNetSampler sampler(weights, {3, 1.0f, o.threads}, compact);
  auto start = std::chrono::steady_clock::now();
  sampler.start(mel);
  std::vector<int32_t> out(sampler.total_samples());
  sampler.generate(out.data(), out.size());
  const double sample_seconds = seconds_since(start);
  const double samples_per_second = static_cast<double>(out.size()) / sample_seconds;
  const double flops =
      config.flops_per_sample() + config.conditioning_flops_per_sample() / config.hop_length;

  // Teacher-forced training step (forward + backward, no optimiser).
  vocoder::Batch batch;
  batch.segments = o.train_batch;
  batch.length = o.train_length;
  const int crop_frames = o.train_length / config.hop_length + 2;
  batch.mel.resize(config.mel_channels, o.train_batch * crop_frames);
  for (Eigen::Index k = 0; k < batch.mel.size(); ++k) batch.mel.data()[k] = normal(rng);
  std::uniform_int_distribution<int32_t> cls(0, config.classes - 1);
  for (int s = 0; s < o.train_batch; ++s)
    for (int t = 0; t < o.train_length; ++t) {
      batch.inputs.push_back(cls(rng));
      batch.targets.push_back(cls(rng));
      int32_t index;
      float weight;
      vocoder::frame_position(t, config.hop_length, s * crop_frames, index, weight);
      batch.frame_index.push_back(index);
      batch.frame_weight.push_back(weight);
    }
  kernels::set_gemm_threads(o.threads);
  const auto pass = vocoder::make_training_pass(weights, o.train);
  kernels::ParameterSet grads = weights.parameters().zeros_like();
  // Device memory before the first step (the CUDA context and libraries) and after it: the pass
  // keeps its buffers between steps, so the difference is what a step of this batch needs.
  const std::int64_t memory_before = pass->device_memory_in_use();
  pass->forward(batch);  // warm-up: allocations
  pass->backward(grads);
  const std::int64_t memory_after = pass->device_memory_in_use();
  auto mebibytes = [](std::int64_t bytes) {
    return bytes < 0 ? nlohmann::json(nullptr)
                     : nlohmann::json(std::round(static_cast<double>(bytes) / (1 << 20)));
  };
  // The device's idle fraction over the timed steps: 1 - its busy time / the wall time (on the
  // CPU, which has no device to wait, none is reported).
  auto idle_fraction = [&](double busy, double wall) {
    return busy < 0.0 ? nlohmann::json(nullptr) : nlohmann::json(std::max(0.0, 1.0 - busy / wall));
  };
  pass->device_busy_seconds();  // restarts the device's busy time
  start = std::chrono::steady_clock::now();
  for (int step = 0; step < o.train_steps; ++step) {
    pass->forward(batch);
    pass->backward(grads);  // ends with the gradients on the host: the step is complete
  }
  const double train_seconds = seconds_since(start);
  const double train_samples_per_second =
      static_cast<double>(o.train_steps) * batch.columns() / train_seconds;
  const auto train_idle = idle_fraction(pass->device_busy_seconds(), train_seconds);
  // The whole step a trainer takes, as a PyTorch peer's step with Adam is timed: the pass, then
  // the optimiser's update (clipping, Adam, EMA) on the host, where the trainer makes it. The
  // weights change, so each forward uploads new ones, as in training.
  kernels::ParameterSet ema = weights.parameters(), first = weights.parameters().zeros_like(),
                        second = weights.parameters().zeros_like();
  std::int64_t optimizer_steps = 0;
  train::OptimizerStepSettings optimizer;
  optimizer.adam.learning_rate = 1e-4f;
  start = std::chrono::steady_clock::now();
  for (int step = 0; step < o.train_steps; ++step) {
    grads.set_zero();
    pass->forward(batch);
    pass->backward(grads);
    train::apply_optimizer_step({weights.parameters(), ema, first, second, optimizer_steps}, grads,
                                optimizer);
  }
  const double train_step_seconds = seconds_since(start);
  const double train_step_samples_per_second =
      static_cast<double>(o.train_steps) * batch.columns() / train_step_seconds;
  const auto train_step_idle = idle_fraction(pass->device_busy_seconds(), train_step_seconds);

  const double peak = kernels::measure_peak_gflops();
  // Sampling reads every weight of its matrices once per sample: at best, the rate one thread
  // reads a buffer of that size, divided by that size (per thread: each has its half to read).
  const std::size_t weight_bytes = vocoder::sampling_weight_bytes_per_sample(config, o.weights);
  const double read_bytes_per_second = kernels::measure_read_bytes_per_second(weight_bytes);
  const double memory_bound_samples_per_second =
      read_bytes_per_second * o.threads / static_cast<double>(weight_bytes);
  nlohmann::json line = {
      {"bench", "vocoder"},
      {"layers", config.layers},
      {"residual", config.residual_channels},
      {"skip", config.skip_channels},
      {"sample_rate", config.sample_rate},
      {"threads", o.threads},
      {"samples", out.size()},
      {"samples_per_second", std::round(samples_per_second)},
      {"times_real_time", samples_per_second / config.sample_rate},  // above 1: faster
      {"gflops", samples_per_second * flops / 1e9},
      {"mflop_per_sample", flops / 1e6},
      {"peak_gflops_per_thread", peak},
      {"fraction_of_peak", samples_per_second * flops / 1e9 / (peak * o.threads)},
      {"weights", kernels::weight_precision_name(o.weights)},
      {"weight_bytes_per_sample", weight_bytes},
      {"read_gbytes_per_second_per_thread", read_bytes_per_second / 1e9},
      {"fraction_of_memory_bound", samples_per_second / memory_bound_samples_per_second},
      {"train_samples_per_second", std::round(train_samples_per_second)},
      {"train_step_with_optimizer_samples_per_second", std::round(train_step_samples_per_second)},
      {"train_device_idle_fraction", train_idle},
      {"train_step_with_optimizer_device_idle_fraction", train_step_idle},
      {"train_device_memory_mb", mebibytes(memory_after)},
      {"train_step_device_memory_mb",
       mebibytes(memory_before < 0 ? -1 : memory_after - memory_before)},
      {"train_batch", std::to_string(o.train_batch) + "x" + std::to_string(o.train_length)},
      {"train_device", pass->describe()},
      {"model_bytes", weights.parameters().size() * sizeof(float)},
      {"stream_state_bytes", sampler.state_bytes()},
      {"stream_conditioning_bytes_per_second",
       sampler.conditioning_bytes() / std::max(1e-9, o.seconds)},
      {"gemv_isa", kernels::cpu_kernel_isa()},
  };
  std::cout << line.dump() << "\n";
}

}  // namespace

void register_bench(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand("bench", "Measure speed");
  register_bench_pipeline(*bench, exit_code);
  register_bench_streams(*bench, exit_code);
  bench->require_subcommand(1);
  CLI::App* voc = bench->add_subcommand("vocoder", "WaveNet sampling and training speed");
  voc->add_option("--config", o->config_file, "Vocoder config JSON (default: L=20 R=64 S=256)");
  voc->add_option("--seconds", o->seconds, "Seconds of audio to sample")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_weights_option(*voc, o->weights);
  voc->add_option("--threads", o->threads, "Threads")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  voc->add_option("--train-steps", o->train_steps, "Training steps to time")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  voc->add_option("--train-batch", o->train_batch, "Crops per timed training batch")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  voc->add_option("--train-crop", o->train_length, "Samples per crop of the timed training batch")
      ->check(CLI::Range(16, 1 << 20))
      ->capture_default_str();
  add_device_choice_options(*voc, o->train,
                            "Where the timed training step runs (sampling is timed on the CPU)");
  voc->callback([o, &exit_code] {
    bench_vocoder(*o);
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
