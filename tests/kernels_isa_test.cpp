// Every ISA variant of the CPU kernels (tts/kernels/cpu_isa.h) that this machine can run, forced in
// turn, against scalar references in double precision: the GEMV of sampling and the gate, at the
// WaveNet's shapes and at sizes that are not multiples of any vector width (1, 3, 17, 65, ...).
// Variants this CPU cannot run are skipped, with the reason. Then the selection itself: $TTS_ISA,
// and what `tts --version` reports.
#include <gtest/gtest.h>
#include <sys/wait.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "forced_isa_variant.h"
#include "gpu_parity.h"
#include "tts/kernels/activations.h"
#include "tts/kernels/cpu_isa.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/peak_flops.h"

namespace {

using tts::kernels::cpu_isa;
using tts::kernels::cpu_isa_variants;
using tts::kernels::CpuIsaVariant;
using tts::kernels::force_cpu_isa;
using tts::kernels::Matrix;
using tts::kernels::Vector;
using tts::testing::normalised_error;

// The bound the project holds fp32 kernels to against a reference (tests/backend_ops_test.cpp).
constexpr double kFp32Bound = 1e-5;

using tts::testing_support::built_variant_names;

class IsaVariant : public tts::testing_support::ForcedIsaVariant {};

using StridedMap = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;

TEST_P(IsaVariant, GemvAgreesWithTheScalarReference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // Rows cover the kernel's 64-row, 16-row and single-row blocks and every remainder between;
  // (128, 128), (64, 64), (256, 1280) and (256, 256) are the WaveNet's (R = 64, S = 256, L = 20).
  const std::vector<std::array<Eigen::Index, 2>> shapes = {
      {1, 1},    {1, 7},     {3, 5},      {7, 3},      {15, 9},  {16, 16},   {17, 33},
      {31, 2},   {63, 64},   {64, 64},    {65, 129},   {79, 80}, {128, 128}, {129, 127},
      {200, 37}, {256, 256}, {256, 1280}, {257, 1281}, {320, 3}, {1000, 11}};
  for (const auto& [m, n] : shapes)
    for (const Eigen::Index pad : {Eigen::Index{0}, Eigen::Index{5}})
      for (const bool accumulate : {false, true}) {
        // Leading dimension lda ≥ m: a block of a bigger matrix, as the sampler's weight slices
        // are.
        Matrix storage(m + pad, n);
        for (Eigen::Index k = 0; k < storage.size(); ++k) storage.data()[k] = u(rng);
        const StridedMap a(storage.data(), m, n, Eigen::OuterStride<>(m + pad));
        Vector x(n), y0(m);
        for (auto& v : x) v = u(rng);
        for (auto& v : y0) v = u(rng);
        std::vector<double> reference(m);
        for (Eigen::Index i = 0; i < m; ++i) {
          double s = accumulate ? y0(i) : 0.0;
          for (Eigen::Index j = 0; j < n; ++j) s += double(a(i, j)) * x(j);
          reference[i] = s;
        }
        std::vector<float> reference_f(reference.begin(), reference.end());
        Vector y = y0;
        tts::kernels::gemv(y, a, x, accumulate);
        double norm = 0.0;
        const double error = normalised_error(y.data(), reference_f.data(), m, &norm);
        ASSERT_GT(norm, 0.0);
        EXPECT_LT(error, kFp32Bound) << variant_.name << ": " << m << " x " << n << " (lda "
                                     << m + pad << ")" << (accumulate ? ", accumulating" : "");
      }
}

// Inputs over the gate's whole range: the approximation's core, its tails, and beyond ±7.9, where
// tanh is ±1 in float.
std::vector<float> gate_inputs(std::size_t n, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

TEST_P(IsaVariant, GateAgreesWithTheScalarReference) {
  std::mt19937 rng(11);
  for (const std::size_t n :
       {1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 1001})
    for (const float scale : {0.5f, 4.0f, 12.0f}) {
      const std::vector<float> f = gate_inputs(n, scale, rng), g = gate_inputs(n, scale, rng);
      std::vector<float> want(n), want_tanh(n), want_sigmoid(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double t = std::tanh(double(f[i])), s = 1.0 / (1.0 + std::exp(-double(g[i])));
        want[i] = float(t * s);
        want_tanh[i] = float(t);
        want_sigmoid[i] = float(s);
      }
      // Training's path (the factors kept for the backward pass), one column.
      const Eigen::Index r = static_cast<Eigen::Index>(n);
      Matrix z(2 * r, 1), gated(r, 1), keep_tanh(r, 1), keep_sigmoid(r, 1);
      for (Eigen::Index i = 0; i < r; ++i) {
        z(i, 0) = f[i];
        z(r + i, 0) = g[i];
      }
      tts::kernels::gate_forward(z, gated, keep_tanh, keep_sigmoid);
      // Sampling's path.
      Vector step(r);
      tts::kernels::gate_forward_step(z.col(0).head(r), z.col(0).tail(r), step);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(step(i), gated(i, 0))
            << variant_.name << ": sampling and training gates differ at " << i << " of " << n;
      const std::string what =
          variant_.name + ": n = " + std::to_string(n) + ", inputs in ±" + std::to_string(scale);
      // The gate's accuracy is absolute (a few ulp of values ≤ 1), so the normalised bound holds
      // where the reference's RMS is ≥ 0.1; a few values can all be sigmoids of −12 (6e-6), whose
      // ulp-sized absolute error is then a large relative one.
      const auto expect_close = [&](const float* got, const std::vector<float>& ref,
                                    const char* which) {
        double norm = 0.0, max_error = 0.0;
        const double error = normalised_error(got, ref.data(), n, &norm);
        for (std::size_t i = 0; i < n; ++i)
          max_error = std::max(max_error, double(std::abs(got[i] - ref[i])));
        EXPECT_LT(max_error, 1e-6) << which << ", " << what;
        if (norm >= 0.1 * std::sqrt(double(n))) {
          EXPECT_LT(error, kFp32Bound) << which << ", " << what;
        }
      };
      expect_close(gated.data(), want, "tanh · sigmoid");
      expect_close(keep_tanh.data(), want_tanh, "tanh");
      expect_close(keep_sigmoid.data(), want_sigmoid, "sigmoid");
    }
}

// Within one variant a gate's value does not depend on where it sits in the array (vector body or
// scalar tail): the sampler gates a few channels at a time, training whole columns.
TEST_P(IsaVariant, GateValueIndependentOfItsPlaceInTheArray) {
  std::mt19937 rng(13);
  const std::size_t n = 203;
  const std::vector<float> f = gate_inputs(n, 9.0f, rng), g = gate_inputs(n, 9.0f, rng);
  Vector whole(n);
  tts::kernels::gate_forward_step(Eigen::Map<const Vector>(f.data(), n),
                                  Eigen::Map<const Vector>(g.data(), n), whole);
  for (const std::size_t chunk : {1, 3, 5, 17, 32, 33}) {
    Vector pieces(n);
    for (std::size_t at = 0; at < n; at += chunk) {
      const std::size_t len = std::min(chunk, n - at);
      Eigen::Map<Vector> out(pieces.data() + at, len);
      tts::kernels::gate_forward_step(Eigen::Map<const Vector>(f.data() + at, len),
                                      Eigen::Map<const Vector>(g.data() + at, len), out);
    }
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(pieces(i), whole(i)) << variant_.name << ": chunks of " << chunk << ", at " << i;
  }
}

TEST_P(IsaVariant, PeakMeasureRunsInTheVariant) {
  // Positive only: under qemu (scripts/cross-aarch64) SVE runs at a few MFLOP/s.
  EXPECT_GT(tts::kernels::measure_peak_gflops(0.02), 0.0) << variant_.name;
  EXPECT_EQ(std::string(cpu_isa()), variant_.name);
  EXPECT_EQ(std::string(tts::kernels::cpu_kernel_isa()).rfind(variant_.name + " (", 0), 0u)
      << tts::kernels::cpu_kernel_isa();
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, IsaVariant, ::testing::ValuesIn(built_variant_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(IsaRegistry, BuildsTheVariantsOfItsArchitectureBestFirst) {
  const std::vector<std::string> names = built_variant_names();
#if defined(__x86_64__)
  EXPECT_EQ(names, (std::vector<std::string>{"avx512", "avx2", "baseline"}));
#elif defined(__aarch64__)
  EXPECT_EQ(names, (std::vector<std::string>{"sve", "baseline"}));
#else
  EXPECT_EQ(names, (std::vector<std::string>{"baseline"}));
#endif
  const std::vector<CpuIsaVariant> variants = cpu_isa_variants();
  EXPECT_TRUE(variants.back().runs_here);  // the baseline runs everywhere
  // A variant runs here only if the ones below it do (each level contains the next).
  for (std::size_t k = 1; k < variants.size(); ++k)
    if (variants[k - 1].runs_here) {
      EXPECT_TRUE(variants[k].runs_here) << variants[k].name;
    }
#if defined(__x86_64__)
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  EXPECT_EQ(variants[1].runs_here, __builtin_cpu_supports("avx2") &&
                                       __builtin_cpu_supports("fma") &&
                                       __builtin_cpu_supports("bmi2") && f16c);
  EXPECT_EQ(variants[0].runs_here,
            variants[1].runs_here && __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd"));
#endif
}

TEST(IsaRegistry, ForcingAnUnknownOrUnrunnableVariantThrowsAndChangesNothing) {
  const std::string before = cpu_isa();
  try {
    force_cpu_isa("sse9");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sse9"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("baseline"), std::string::npos) << e.what();
  }
  for (const CpuIsaVariant& v : cpu_isa_variants())
    if (!v.runs_here) {
      EXPECT_THROW(force_cpu_isa(v.name), std::invalid_argument) << v.name;
    }
  EXPECT_EQ(std::string(cpu_isa()), before);
}

TEST(IsaRegistry, DefaultIsTheBestVariantThisCpuRuns) {
  const char* wanted = std::getenv("TTS_ISA");
  if (wanted && *wanted && std::string(wanted) != "auto")
    GTEST_SKIP() << "TTS_ISA=" << wanted << " is set for this run";
  std::string best;
  for (const CpuIsaVariant& v : cpu_isa_variants())
    if (v.runs_here && best.empty()) best = v.name;
  EXPECT_EQ(std::string(cpu_isa()), best);
  EXPECT_EQ(tts::kernels::cpu_isa_note(), "");
}

// $TTS_ISA in a fresh process (it is read at the first kernel call), through `tts --version`.
std::string version_with(const std::string& tts_isa) {
  const std::string command =
      "TTS_ISA=" + tts_isa + " " + std::string(TTS_BINARY_DIR) + "/tools/tts --version 2>&1";
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    out.append(buffer.data(), n);
  ::pclose(pipe);
  return out;
}

TEST(IsaSelection, TtsIsaChoosesTheVariantAndVersionReportsIt) {
  const std::string tts = std::string(TTS_BINARY_DIR) + "/tools/tts";
  if (FILE* f = std::fopen(tts.c_str(), "r"))
    std::fclose(f);
  else
    GTEST_SKIP() << tts << " is not built here (a kernels-only build)";
  for (const CpuIsaVariant& v : cpu_isa_variants()) {
    const std::string out = version_with(v.name);
    if (v.runs_here) {
      EXPECT_NE(out.find("CPU kernels: " + v.name + " ("), std::string::npos) << out;
      EXPECT_EQ(out.find("warning"), std::string::npos) << out;
    } else {
      EXPECT_EQ(out.find("CPU kernels: " + v.name + " ("), std::string::npos) << out;
      EXPECT_NE(out.find("TTS_ISA=" + v.name + ": this CPU cannot run it"), std::string::npos)
          << out;
    }
  }
  const std::string bogus = version_with("sse9");
  EXPECT_NE(bogus.find("TTS_ISA=sse9 is not a variant of this build"), std::string::npos) << bogus;
  std::string best;
  for (const CpuIsaVariant& v : cpu_isa_variants())
    if (v.runs_here && best.empty()) best = v.name;
  EXPECT_NE(bogus.find("CPU kernels: " + best + " ("), std::string::npos) << bogus;
}

}  // namespace
