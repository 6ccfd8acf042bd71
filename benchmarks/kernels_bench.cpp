// Micro-benchmarks of the CPU kernels at the WaveNet's sizes, each beside a peer in the same run:
// our GEMV against Eigen's, our gate against Eigen's tanh/logistic, our softmax sampling and layer
// norm against the same maths in Eigen expressions, and OpenBLAS GEMM's FLOP rate.
// Run: build/benchmarks/kernels_bench (numbers are ratios within one run; the machine is shared).
#include <benchmark/benchmark.h>

#include <cmath>

#include "tts/kernels/activations.h"
#include "tts/kernels/compact_matrix.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/normalization.h"
#include "tts/kernels/softmax.h"

using namespace tts::kernels;

namespace {

void set_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// Sizes: 128×128 (dilated conv, R=64), 64×64 (residual), 256×1280 (all skips), 256×256 (head).
void BM_Gemv_Ours(benchmark::State& state) {
  const Matrix a = Matrix::Random(state.range(0), state.range(1));
  const Vector x = Vector::Random(state.range(1));
  Vector y(state.range(0));
  for (auto _ : state) {
    gemv(y, a, x);
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state, 2.0 * a.size());
  state.SetLabel(cpu_kernel_isa());
}

void BM_Gemv_Eigen(benchmark::State& state) {
  const Matrix a = Matrix::Random(state.range(0), state.range(1));
  const Vector x = Vector::Random(state.range(1));
  Vector y(state.range(0));
  for (auto _ : state) {
    y.noalias() = a * x;
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state, 2.0 * a.size());
}

void gemv_sizes(benchmark::internal::Benchmark* b) {
  b->Args({128, 128})->Args({64, 64})->Args({256, 1280})->Args({256, 256});
}

// The sampler's products over compacted weights (range 2: 16 for fp16, 8 for int8 with the input
// rounded once, as the sampler does), at the bundled voice's shapes (R=32, S=128: 64×32 dilated
// halves, 32×32 residual, 128×32 one layer's skip, 128×128 and 256×128 head) and R=64's.
void BM_Gemv_Compact(benchmark::State& state) {
  const Matrix a = Matrix::Random(state.range(0), state.range(1));
  const Vector x = Vector::Random(state.range(1));
  Vector y(state.range(0));
  const bool fp16 = state.range(2) == 16;
  const CompactMatrix compact(a, fp16 ? WeightPrecision::kFp16 : WeightPrecision::kInt8);
  const QuantisedVector rounded(x);
  for (auto _ : state) {
    if (fp16)
      compact.gemv(y, x);
    else
      compact.gemv(y, rounded);
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state, 2.0 * a.size());
  state.SetLabel(cpu_kernel_isa());
}

void compact_sizes(benchmark::internal::Benchmark* b) {
  for (const int bits : {16, 8})
    b->Args({64, 32, bits})
        ->Args({32, 32, bits})
        ->Args({128, 32, bits})
        ->Args({128, 128, bits})
        ->Args({256, 128, bits})
        ->Args({128, 64, bits})
        ->Args({256, 256, bits});
}

// Rounding a vector for the int8 products.
void BM_QuantiseI8(benchmark::State& state) {
  const Vector x = Vector::Random(state.range(0));
  QuantisedVector q;
  for (auto _ : state) {
    q.assign(x);
    benchmark::DoNotOptimize(q.data());
  }
}

void BM_Gate_Ours(benchmark::State& state) {
  const Vector z = Vector::Random(2 * state.range(0)) * 4.0f;
  Vector out(state.range(0));
  for (auto _ : state) {
    gate_forward_step(z.head(state.range(0)), z.tail(state.range(0)), out);
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_Gate_Eigen(benchmark::State& state) {
  const Vector z = Vector::Random(2 * state.range(0)) * 4.0f;
  Vector out(state.range(0));
  for (auto _ : state) {
    out = z.head(state.range(0)).array().tanh() * z.tail(state.range(0)).array().logistic();
    benchmark::DoNotOptimize(out.data());
  }
}

// One draw from 256 classes (the WaveNet's μ-law classes), logits spread as a trained head's are.
void BM_SoftmaxSample_Ours(benchmark::State& state) {
  const Vector logits = Vector::Random(state.range(0)) * 8.0f;
  Vector scratch(state.range(0));
  float uniform = 0.0f;
  for (auto _ : state) {
    benchmark::DoNotOptimize(softmax_sample(logits, 1.0f, uniform, scratch));
    uniform = uniform < 0.9f ? uniform + 0.1f : 0.0f;
  }
  state.SetLabel(cpu_kernel_isa());
}

// What softmax_sample ran before it joined the ISA table: Eigen's exp, in the SSE2 that Eigen
// picks at compile time, and its sum.
void BM_SoftmaxSample_Eigen(benchmark::State& state) {
  const Vector logits = Vector::Random(state.range(0)) * 8.0f;
  Vector scratch(state.range(0));
  float uniform = 0.0f;
  for (auto _ : state) {
    const float max = logits.maxCoeff();
    scratch = ((logits.array() - max) * (1.0f / 1.0f)).exp();
    const float target = uniform * scratch.sum();
    float cumulative = 0.0f;
    Eigen::Index k = 0;
    for (; k + 1 < scratch.size(); ++k) {
      cumulative += scratch[k];
      if (target < cumulative) break;
    }
    benchmark::DoNotOptimize(k);
    uniform = uniform < 0.9f ? uniform + 0.1f : 0.0f;
  }
}

// The acoustic model's decoder: 256 channels × 229 frames (the bundled voice's first sentence).
void BM_LayerNorm_Ours(benchmark::State& state) {
  const Matrix x = Matrix::Random(state.range(0), state.range(1));
  const Vector gamma = Vector::Random(state.range(0)), beta = Vector::Random(state.range(0));
  Matrix normalized(x.rows(), x.cols()), y(x.rows(), x.cols());
  Vector inv_std(x.cols());
  for (auto _ : state) {
    layer_norm_forward(x, gamma, beta, 1e-5f, normalized, inv_std, y);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetLabel(cpu_kernel_isa());
}

// What layer_norm_forward ran before it joined the ISA table.
void BM_LayerNorm_Eigen(benchmark::State& state) {
  const Matrix x = Matrix::Random(state.range(0), state.range(1));
  const Vector gamma = Vector::Random(state.range(0)), beta = Vector::Random(state.range(0));
  Matrix normalized(x.rows(), x.cols()), y(x.rows(), x.cols());
  Vector inv_std(x.cols());
  for (auto _ : state) {
    for (Eigen::Index t = 0; t < x.cols(); ++t) {
      const float mean = x.col(t).mean();
      normalized.col(t) = x.col(t).array() - mean;
      const float variance = normalized.col(t).squaredNorm() / static_cast<float>(x.rows());
      inv_std(t) = 1.0f / std::sqrt(variance + 1e-5f);
      normalized.col(t) *= inv_std(t);
      y.col(t) = normalized.col(t).cwiseProduct(gamma) + beta;
    }
    benchmark::DoNotOptimize(y.data());
  }
}

// The training products: [2R × 2R] · [2R × N] and [S × L·R] · [L·R × N] for N = 4 × 8000.
void BM_Gemm_Training(benchmark::State& state) {
  set_gemm_threads(1);
  const Matrix a = Matrix::Random(state.range(0), state.range(1));
  const Matrix b = Matrix::Random(state.range(1), state.range(2));
  Matrix c(state.range(0), state.range(2));
  for (auto _ : state) {
    gemm(c, a, Transpose::kNo, b, Transpose::kNo);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, 2.0 * a.rows() * a.cols() * b.cols());
}

}  // namespace

BENCHMARK(BM_Gemv_Ours)->Apply(gemv_sizes);
BENCHMARK(BM_Gemv_Eigen)->Apply(gemv_sizes);
BENCHMARK(BM_Gemv_Compact)->Apply(compact_sizes);
BENCHMARK(BM_QuantiseI8)->Arg(32)->Arg(128);
BENCHMARK(BM_Gate_Ours)->Arg(64)->Arg(1280);
BENCHMARK(BM_Gate_Eigen)->Arg(64)->Arg(1280);
BENCHMARK(BM_SoftmaxSample_Ours)->Arg(256);
BENCHMARK(BM_SoftmaxSample_Eigen)->Arg(256);
BENCHMARK(BM_LayerNorm_Ours)->Args({256, 229});
BENCHMARK(BM_LayerNorm_Eigen)->Args({256, 229});
BENCHMARK(BM_Gemm_Training)
    ->Args({128, 128, 32000})
    ->Args({256, 1280, 32000})
    ->Unit(benchmark::kMillisecond);
