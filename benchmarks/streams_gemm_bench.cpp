// Whether a GEMM over streams beats a GEMV per stream in CPU sampling: one sample's matrix products
// of the bundled voice's vocoder shape (L=20 layers, R=32 residual, S=128 skip, A=256 classes:
// every layer's dilated 2R×2R and skip S×R products, L−1 residual R×R, the head's S×S and A×S)
// for B streams, as the CPU sampler makes them (B GEMVs per matrix, tts::kernels::gemv) and as one
// GEMM of each matrix over the B streams' inputs (OpenBLAS, one thread). Items are stream-samples:
// items_per_second is the products' ceiling on samples a second over all B streams.
//
//   build/benchmarks/streams_gemm_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <vector>

#include "tts/kernels/linear_algebra.h"

using namespace tts::kernels;

namespace {

struct Product {
  Matrix weights, inputs, outputs;
  int count;  // per sample
};

std::vector<Product> products(int streams) {
  const int L = 20, R = 32, S = 128, A = 256;
  const struct {
    int rows, cols, count;
  } shapes[] = {{2 * R, 2 * R, L}, {R, R, L - 1}, {S, R, L}, {S, S, 1}, {A, S, 1}};
  std::vector<Product> all;
  for (const auto& s : shapes)
    all.push_back({Matrix::Random(s.rows, s.cols), Matrix::Random(s.cols, streams),
                   Matrix(s.rows, streams), s.count});
  return all;
}

void BM_GemvPerStream(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  std::vector<Product> all = products(streams);
  for (auto _ : state)
    for (Product& p : all)
      for (int k = 0; k < p.count; ++k)
        for (int b = 0; b < streams; ++b) gemv(p.outputs.col(b), p.weights, p.inputs.col(b));
  state.SetItemsProcessed(state.iterations() * streams);
  state.SetLabel(cpu_kernel_isa());
}

void BM_GemmOverStreams(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  set_gemm_threads(1);
  std::vector<Product> all = products(streams);
  for (auto _ : state)
    for (Product& p : all)
      for (int k = 0; k < p.count; ++k)
        gemm(p.outputs, p.weights, Transpose::kNo, p.inputs, Transpose::kNo);
  state.SetItemsProcessed(state.iterations() * streams);
  state.SetLabel(gemm_kernels());
}

}  // namespace

BENCHMARK(BM_GemvPerStream)->Arg(1)->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_GemmOverStreams)->Arg(1)->Arg(4)->Arg(16)->Arg(64);
