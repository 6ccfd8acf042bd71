// Parity of the CUDA kernels (tts/kernels/cuda/kernels.h) with their CPU references: the same
// random inputs (fixed seeds) through both, compared by the normalised error ‖gpu − cpu‖ / ‖cpu‖,
// which a sign flip (error 2) or an all-zero result (error 1) can never pass. Built only with the
// CUDA backend; every test skips, saying why, when no GPU is visible. CudaBenchmark.* times the
// GEMMs of a WaveNet training step when TTS_CUDA_BENCH=1 (scripts/gpu-check runs it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "skip_without_gpu.h"
#include "tts/kernels/activations.h"
#include "tts/kernels/cuda/kernels.h"
#include "tts/kernels/device.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/softmax.h"

namespace cuda = tts::kernels::cuda;
using tts::kernels::Matrix;
using tts::kernels::Transpose;
using tts::kernels::Vector;

namespace {

constexpr double kFp32Bound = 1e-5;  // normalised error of fp32 kernels against the CPU
constexpr double kBf16Bound = 1e-2;  // bf16 inputs (8-bit mantissa) against fp32 on the CPU
// fp16 inputs (11-bit significand: a rounding 8 times finer than bf16's) against fp32 on the CPU.
constexpr double kFp16Bound = 2e-3;

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

// ‖gpu − cpu‖ / ‖cpu‖, after checking that the reference itself is not zero (else any result would
// look close in absolute terms and the ratio is meaningless).
double normalised_error(const Matrix& gpu, const Matrix& cpu) {
  EXPECT_EQ(gpu.rows(), cpu.rows());
  EXPECT_EQ(gpu.cols(), cpu.cols());
  const double reference = cpu.cast<double>().norm();
  EXPECT_GT(reference, 0.0) << "the CPU reference is all zeros";
  return (gpu.cast<double>() - cpu.cast<double>()).norm() / reference;
}

Matrix round_to_bf16(const Matrix& m) { return m.cast<Eigen::bfloat16>().cast<float>(); }
Matrix round_to_fp16(const Matrix& m) { return m.cast<Eigen::half>().cast<float>(); }

const char* name(Transpose t) { return t == Transpose::kYes ? "T" : "N"; }

}  // namespace

TEST(CudaKernels, GemmFp32MatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int m = 67, n = 45, k = 129;  // odd sizes: no kernel may assume multiples of a tile
  int seed = 10;
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      const Matrix a =
          ta == Transpose::kNo ? random_matrix(m, k, ++seed) : random_matrix(k, m, ++seed);
      const Matrix b =
          tb == Transpose::kNo ? random_matrix(k, n, ++seed) : random_matrix(n, k, ++seed);
      const Matrix c0 = random_matrix(m, n, ++seed);
      for (float beta : {0.0f, 0.3f}) {
        Matrix cpu = c0, gpu = c0;
        tts::kernels::gemm(cpu, a, ta, b, tb, 0.7f, beta);
        cuda::gemm(gpu, a, ta, b, tb, 0.7f, beta, cuda::GemmPrecision::kFp32);
        EXPECT_LT(normalised_error(gpu, cpu), kFp32Bound)
            << "op(A)=" << name(ta) << " op(B)=" << name(tb) << " beta=" << beta;
      }
    }
  }
}

TEST(CudaKernels, GemmIntoStridedViewMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  // As training does: the product lands in a block of rows of a taller matrix (outer stride ≠
  // rows).
  const Matrix a = random_matrix(32, 40, 21), b = random_matrix(40, 50, 22);
  Matrix cpu = random_matrix(96, 50, 23), gpu = cpu;
  tts::kernels::gemm(cpu.middleRows(32, 32), a, Transpose::kNo, b, Transpose::kNo, 1.0f, 1.0f);
  cuda::gemm(gpu.middleRows(32, 32), a, Transpose::kNo, b, Transpose::kNo, 1.0f, 1.0f);
  EXPECT_LT(normalised_error(gpu, cpu), kFp32Bound);
  EXPECT_EQ(gpu.topRows(32), cpu.topRows(32));  // rows outside the view untouched
  EXPECT_EQ(gpu.bottomRows(32), cpu.bottomRows(32));
}

TEST(CudaKernels, GemmBf16MatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int m = 128, n = 300, k = 256;  // a dilated-convolution-like shape
  const Matrix a = random_matrix(m, k, 31), b = random_matrix(n, k, 32),
               c0 = random_matrix(m, n, 33);
  Matrix cpu = c0, cpu_bf16_inputs = c0, gpu = c0;
  tts::kernels::gemm(cpu, a, Transpose::kNo, b, Transpose::kYes, 1.0f, 0.5f);
  tts::kernels::gemm(cpu_bf16_inputs, round_to_bf16(a), Transpose::kNo, round_to_bf16(b),
                     Transpose::kYes, 1.0f, 0.5f);
  cuda::gemm(gpu, a, Transpose::kNo, b, Transpose::kYes, 1.0f, 0.5f, cuda::GemmPrecision::kBf16);
  // Against fp32: only the rounding of the inputs to bf16 separates them.
  EXPECT_LT(normalised_error(gpu, cpu), kBf16Bound);
  // Against the CPU on the same bf16-rounded inputs: proves fp32 accumulation (a bf16 accumulator
  // or output would be off by ~1e-3).
  EXPECT_LT(normalised_error(gpu, cpu_bf16_inputs), kFp32Bound);
}

TEST(CudaKernels, GemmFp16MatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int m = 128, n = 300, k = 256;
  const Matrix a = random_matrix(m, k, 31), b = random_matrix(n, k, 32),
               c0 = random_matrix(m, n, 33);
  Matrix cpu = c0, cpu_fp16_inputs = c0, gpu = c0;
  tts::kernels::gemm(cpu, a, Transpose::kNo, b, Transpose::kYes, 1.0f, 0.5f);
  tts::kernels::gemm(cpu_fp16_inputs, round_to_fp16(a), Transpose::kNo, round_to_fp16(b),
                     Transpose::kYes, 1.0f, 0.5f);
  cuda::gemm(gpu, a, Transpose::kNo, b, Transpose::kYes, 1.0f, 0.5f, cuda::GemmPrecision::kFp16);
  EXPECT_LT(normalised_error(gpu, cpu), kFp16Bound);
  // The same rounded inputs on the CPU: fp32 accumulation and output (an fp16 one would be ~5e-4).
  EXPECT_LT(normalised_error(gpu, cpu_fp16_inputs), kFp32Bound);
}

TEST(CudaKernels, GateForwardMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int r = 64, n = 333;
  const Matrix z = random_matrix(2 * r, n, 41, 3.0f);  // wide enough to reach the saturated tails
  Matrix cpu(r, n), cpu_tanh(r, n), cpu_sigmoid(r, n);
  Matrix gpu(r, n), gpu_tanh(r, n), gpu_sigmoid(r, n);
  tts::kernels::gate_forward(z, cpu, cpu_tanh, cpu_sigmoid);
  cuda::gate_forward(z, gpu, gpu_tanh, gpu_sigmoid);
  EXPECT_LT(normalised_error(gpu, cpu), kFp32Bound);
  EXPECT_LT(normalised_error(gpu_tanh, cpu_tanh), kFp32Bound);
  EXPECT_LT(normalised_error(gpu_sigmoid, cpu_sigmoid), kFp32Bound);

  Matrix gpu_only(r, n), none;  // inference: nothing kept
  cuda::gate_forward(z, gpu_only, none, none);
  EXPECT_EQ(gpu_only, gpu);
}

TEST(CudaKernels, GateBackwardMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int r = 64, n = 257;
  const Matrix z = random_matrix(2 * r, n, 51, 2.0f), d_gated = random_matrix(r, n, 52);
  Matrix gated(r, n), t(r, n), s(r, n);
  tts::kernels::gate_forward(z, gated, t, s);
  Matrix cpu(2 * r, n), gpu(2 * r, n);
  tts::kernels::gate_backward(d_gated, t, s, cpu);
  cuda::gate_backward(d_gated, t, s, gpu);
  EXPECT_LT(normalised_error(gpu.topRows(r), cpu.topRows(r)), kFp32Bound);
  EXPECT_LT(normalised_error(gpu.bottomRows(r), cpu.bottomRows(r)), kFp32Bound);
}

TEST(CudaKernels, SoftmaxCrossEntropyMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int classes = 256, n = 1000;
  const Matrix logits = random_matrix(classes, n, 61, 4.0f);
  std::mt19937 rng(62);
  std::vector<int32_t> targets(n);
  for (int32_t& target : targets) target = static_cast<int32_t>(rng() % classes);
  Matrix cpu_d(classes, n), gpu_d(classes, n), none;
  const double cpu_loss = tts::kernels::softmax_cross_entropy(logits, targets, cpu_d);
  const double gpu_loss = cuda::softmax_cross_entropy(logits, targets, gpu_d);
  ASSERT_GT(cpu_loss, 0.0);
  EXPECT_LT(std::abs(gpu_loss - cpu_loss) / cpu_loss, kFp32Bound) << gpu_loss << " vs " << cpu_loss;
  EXPECT_LT(normalised_error(gpu_d, cpu_d), kFp32Bound);
  EXPECT_DOUBLE_EQ(cuda::softmax_cross_entropy(logits, targets, none), gpu_loss);

  targets[7] = classes;  // out of range: rejected before anything runs, as on the CPU
  EXPECT_THROW(cuda::softmax_cross_entropy(logits, targets, gpu_d), std::invalid_argument);
}

namespace {

// True when `uniform`·Σp lies within rounding of every class boundary between the two classes, so
// that both are a correct inverse-CDF answer in float arithmetic (computed here in double).
bool near_tie(const Matrix& logits, Eigen::Index column, float temperature, float uniform, int a,
              int b) {
  const Eigen::VectorXd l = logits.col(column).cast<double>();
  const Eigen::VectorXd p = ((l.array() - l.maxCoeff()) / temperature).exp();
  const double sum = p.sum(), target = uniform * sum, tolerance = 1e-4 * sum;
  double cumulative = 0.0;
  for (int k = 0; k < std::max(a, b); ++k) {
    cumulative += p[k];
    if (k >= std::min(a, b) && std::abs(cumulative - target) > tolerance) return false;
  }
  return true;
}

}  // namespace

TEST(CudaKernels, SoftmaxSampleMatchesCpu) {
  TTS_SKIP_WITHOUT_GPU();
  const int classes = 256, n = 4096;
  Matrix logits = random_matrix(classes, n, 71, 3.0f);
  logits.col(0).setConstant(0.5f);  // all tied: arg-max is class 0
  logits.col(1).setZero();
  logits(17, 1) = logits(200, 1) = 9.0f;  // a tied maximum: the first index wins
  std::mt19937 rng(72);
  std::uniform_real_distribution<float> uniform01(0.0f, 1.0f);
  std::vector<float> uniforms(n);
  for (float& u : uniforms) u = uniform01(rng);
  uniforms[2] = 0.0f;
  uniforms[3] = std::nextafter(1.0f, 0.0f);

  Vector scratch(classes);
  for (float temperature : {1.0f, 0.7f, 1.6f, 0.0f}) {
    const std::vector<int32_t> gpu = cuda::softmax_sample(logits, temperature, uniforms);
    ASSERT_EQ(gpu.size(), static_cast<std::size_t>(n));
    int mismatches = 0;
    for (int t = 0; t < n; ++t) {
      const int32_t cpu =
          tts::kernels::softmax_sample(logits.col(t), temperature, uniforms[t], scratch);
      if (gpu[t] == cpu) continue;
      ++mismatches;
      EXPECT_GT(temperature, 0.0f) << "arg-max differs at column " << t;
      if (temperature > 0.0f) {
        EXPECT_TRUE(near_tie(logits, t, temperature, uniforms[t], cpu, gpu[t]))
            << "column " << t << ": CPU class " << cpu << ", GPU class " << gpu[t] << " at uniform "
            << uniforms[t] << " (not a near-tie)";
      }
    }
    EXPECT_LE(mismatches, n / 1000) << "temperature " << temperature;
    std::printf("temperature %.1f: %d of %d sampled classes differ from the CPU (near-ties)\n",
                temperature, mismatches, n);
    if (temperature == 0.0f) {
      EXPECT_EQ(gpu[0], 0);
      EXPECT_EQ(gpu[1], 17);
    }
  }
}

TEST(CudaKernels, ShapeErrorsAreExceptions) {
  TTS_SKIP_WITHOUT_GPU();
  Matrix c(3, 3);
  EXPECT_THROW(cuda::gemm(c, Matrix(3, 4), Transpose::kNo, Matrix(5, 3), Transpose::kNo),
               std::invalid_argument);
  Matrix gated(2, 3);
  EXPECT_THROW(cuda::gate_forward(Matrix(4, 4), gated, gated, gated), std::invalid_argument);
  EXPECT_THROW(cuda::softmax_sample(Matrix(8, 2), 1.0f, {0.5f}), std::invalid_argument);
}

// The GEMMs of one WaveNet training step (L=20, R=64, S=256, 256 classes, 80 mels at hop 200) over
// N columns (time steps of all crops), forward and backward, as vocoder/teacher_forced.cpp issues
// them. Reports each shape's TFLOP/s against the H200's datasheet peak, and the step's GEMM time as
// a bound on training samples per second (the goal: 10 million/s in bf16).
TEST(CudaBenchmark, TrainingStepGemms) {
  TTS_SKIP_WITHOUT_GPU();
  const char* enabled = std::getenv("TTS_CUDA_BENCH");
  if (!enabled || std::string(enabled) != "1") GTEST_SKIP() << "set TTS_CUDA_BENCH=1 to run";
  const char* columns_env = std::getenv("TTS_CUDA_BENCH_COLUMNS");
  const int N = columns_env ? std::atoi(columns_env) : 32768;
  const int L = 20, R = 64, S = 256, classes = 256, mels = 80, frames = (N + 199) / 200;
  const Transpose no = Transpose::kNo, yes = Transpose::kYes;
  const std::vector<cuda::GemmShape> shapes = {
      {"fwd conditioning", L * 2 * R, frames, mels, no, no, 1},
      {"fwd dilated", 2 * R, N, 2 * R, no, no, L},
      {"fwd residual", R, N, R, no, no, L - 1},
      {"fwd skip", S, N, L * R, no, no, 1},
      {"fwd head hidden", S, N, S, no, no, 1},
      {"fwd head output", classes, N, S, no, no, 1},
      {"bwd head output dW", classes, S, N, no, yes, 1},
      {"bwd head output dX", S, N, classes, yes, no, 1},
      {"bwd head hidden dW", S, S, N, no, yes, 1},
      {"bwd head hidden dX", S, N, S, yes, no, 1},
      {"bwd skip dW", S, L * R, N, no, yes, 1},
      {"bwd skip dX", L * R, N, S, yes, no, 1},
      {"bwd residual dX", R, N, R, yes, no, L - 1},
      {"bwd residual dW", R, R, N, no, yes, L - 1},
      {"bwd dilated dW", 2 * R, 2 * R, N, no, yes, L},
      {"bwd dilated dX", 2 * R, N, 2 * R, yes, no, L},
      {"bwd conditioning dW", L * 2 * R, mels, frames, no, yes, 1},
  };
  std::printf("device: %s; N = %d columns\n", cuda::describe_current_device().c_str(), N);
  for (cuda::GemmPrecision precision : {cuda::GemmPrecision::kFp32, cuda::GemmPrecision::kBf16}) {
    // H200 SXM datasheet, dense: 67 TFLOP/s fp32 (CUDA cores), 989 TFLOP/s bf16 (tensor cores).
    const double peak = precision == cuda::GemmPrecision::kBf16 ? 989e12 : 67e12;
    const std::vector<cuda::GemmTiming> timings = cuda::benchmark_gemms(shapes, precision, 20);
    double seconds = 0.0, flops = 0.0;
    std::printf("%-22s %5s %6s %6s %3s %10s %9s %7s\n", to_string(precision), "m", "n", "k", "x",
                "us", "TFLOP/s", "% peak");
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const cuda::GemmShape& s = shapes[i];
      const double tflops = timings[i].flops / timings[i].seconds / 1e12;
      std::printf("%-22s %5d %6d %6d %3d %10.1f %9.2f %6.1f%%\n", s.name.c_str(), s.m, s.n, s.k,
                  s.count, timings[i].seconds * 1e6, tflops, 100.0 * tflops * 1e12 / peak);
      seconds += timings[i].seconds;
      flops += timings[i].flops;
      EXPECT_GT(timings[i].seconds, 0.0);
    }
    std::printf(
        "GPU_BENCH %s step_gemm_ms=%.3f tflops=%.2f peak_pct=%.1f gemm_bound_samples_per_s=%.3g\n",
        to_string(precision), seconds * 1e3, flops / seconds / 1e12, 100.0 * flops / seconds / peak,
        N / seconds);
  }
}
