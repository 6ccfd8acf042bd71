// The ISA variants (tts/kernels/cpu_isa.h) of softmax sampling and layer normalisation, each
// variant this machine runs forced in turn, against scalar references in double precision, at the
// WaveNet's 256 classes, the acoustic model's channel counts and sizes that are not multiples of
// any vector width. Variants this CPU cannot run are skipped, with the reason.
// Tolerances: the exponentials within 4e-7 relative (Cephes' polynomial, ~1 ulp, plus the rounding
// of its argument), the layer norm within the project's fp32 bound (1e-5 normalised). The
// variants sum in the same 16 lanes, so they differ only where FMA (avx2, avx512) fuses a
// multiply-add, by an ulp or so; a sampled class agrees with the reference wherever the uniform
// lies further than that from a boundary of the CDF.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "forced_isa_variant.h"
#include "gpu_parity.h"
#include "tts/kernels/cpu_isa.h"
#include "tts/kernels/normalization.h"
#include "tts/kernels/softmax.h"

namespace {

using tts::kernels::cpu_isa;
using tts::kernels::Matrix;
using tts::kernels::Vector;
using tts::testing::normalised_error;

constexpr double kFp32Bound = 1e-5;
constexpr double kExpBound = 4e-7;

using tts::testing_support::built_variant_names;

class IsaMath : public tts::testing_support::ForcedIsaVariant {};

// The class whose CDF interval holds `uniform`, in double; -1 when the uniform lies within
// `margin` (relative to the total) of a boundary, where rounding may pick either neighbour.
int reference_class(const std::vector<double>& p, double uniform, double margin) {
  double total = 0.0;
  for (double v : p) total += v;
  const double target = uniform * total;
  double cumulative = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    cumulative += p[k];
    if (std::abs(target - cumulative) < margin * total) return -1;
    if (target < cumulative) return static_cast<int>(k);
  }
  return -1;
}

TEST_P(IsaMath, SoftmaxSampleAgreesWithTheScalarReference) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int compared = 0;
  for (const Eigen::Index n : {1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100, 255, 256, 257, 1000})
    // Spreads of logits up to ±60: at temperature 0.5 their differences reach −240, where the
    // exponential is under float's range (0, as the reference rounds to in float).
    for (const float spread : {0.5f, 8.0f, 60.0f})
      for (const float temperature : {1.0f, 0.5f, 2.0f}) {
        std::uniform_real_distribution<float> u(-spread, spread);
        Vector logits(n), scratch(n);
        for (auto& v : logits) v = u(rng);
        // The exponentials of the kernel's float arguments: the rounding of (l − max) / T alone
        // would change exp by |x| · 6e-8, several ulp where |x| is tens.
        const float max = logits.maxCoeff(), inv_temperature = 1.0f / temperature;
        std::vector<double> p(n);
        for (Eigen::Index i = 0; i < n; ++i)
          p[i] = std::exp(double((logits(i) - max) * inv_temperature));
        for (int draw = 0; draw < 8; ++draw) {
          const float uniform = float(unit(rng));
          const int32_t got = tts::kernels::softmax_sample(logits, temperature, uniform, scratch);
          const std::string what = variant_.name + ": n = " + std::to_string(n) + ", spread " +
                                   std::to_string(spread) + ", T = " + std::to_string(temperature);
          for (Eigen::Index i = 0; i < n; ++i) {
            const double want = float(p[i]);  // what float can hold: 0 below its range
            if (want >= std::numeric_limits<float>::min())
              ASSERT_NEAR(scratch(i), want, kExpBound * want) << what << ", class " << i;
            else
              ASSERT_LE(scratch(i), std::numeric_limits<float>::min()) << what << ", class " << i;
          }
          const int want = reference_class(p, uniform, 1e-5);
          if (want < 0) continue;
          EXPECT_EQ(got, want) << what << ", uniform " << uniform;
          ++compared;
        }
      }
  EXPECT_GT(compared, 1000);
}

TEST_P(IsaMath, SoftmaxSampleNeverPicksAClassOfZeroProbability) {
  // exp(−1000) and exp(−inf) are 0 in float: whatever the uniform, the class of logit 0 wins.
  Vector logits(20), scratch(20);
  logits.setConstant(-1000.0f);
  logits(7) = 0.0f;
  logits(3) = -std::numeric_limits<float>::infinity();
  for (const float uniform : {0.0f, 0.5f, 0.9999999f})
    EXPECT_EQ(tts::kernels::softmax_sample(logits, 1.0f, uniform, scratch), 7) << variant_.name;
  EXPECT_EQ(scratch(7), 1.0f);
  EXPECT_EQ(scratch(3), 0.0f);
  EXPECT_EQ(scratch(0), 0.0f);
  // A NaN logit (after the first, which the maximum starts from) has probability 0 too.
  logits(5) = std::numeric_limits<float>::quiet_NaN();
  for (const float uniform : {0.0f, 0.5f, 0.9999999f})
    EXPECT_EQ(tts::kernels::softmax_sample(logits, 1.0f, uniform, scratch), 7) << variant_.name;
  EXPECT_EQ(scratch(5), 0.0f);
  logits(5) = -1000.0f;
  // Temperature 0 is the arg-max (the first of equal maxima), whatever the uniform.
  logits(12) = 0.0f;
  EXPECT_EQ(tts::kernels::softmax_sample(logits, 0.0f, 0.9f, scratch), 7) << variant_.name;
}

TEST_P(IsaMath, LayerNormAgreesWithTheScalarReference) {
  std::mt19937 rng(19);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float epsilon = 1e-5f;
  for (const Eigen::Index c : {1, 2, 3, 15, 16, 17, 31, 64, 65, 128, 256, 257, 384})
    for (const float offset : {0.0f, 3.0f}) {
      // A block of a bigger matrix, as the acoustic model's views are (outer stride c + 3).
      const Eigen::Index n = 5;
      Matrix storage(c + 3, n);
      for (Eigen::Index k = 0; k < storage.size(); ++k) storage.data()[k] = offset + normal(rng);
      const Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> x(storage.data(), c, n,
                                                                Eigen::OuterStride<>(c + 3));
      Vector gamma(c), beta(c), inv_std(n);
      for (auto& v : gamma) v = 1.0f + 0.3f * normal(rng);
      for (auto& v : beta) v = 0.3f * normal(rng);
      Matrix normalized(c, n), y(c, n);
      tts::kernels::layer_norm_forward(x, gamma, beta, epsilon, normalized, inv_std, y);
      // y may be x: the same values in place.
      Matrix in_place = x;
      Matrix normalized_again(c, n);
      Vector inv_std_again(n);
      tts::kernels::layer_norm_forward(in_place, gamma, beta, epsilon, normalized_again,
                                       inv_std_again, in_place);
      EXPECT_EQ(in_place, y) << variant_.name << ", C = " << c;
      EXPECT_EQ(normalized_again, normalized) << variant_.name << ", C = " << c;
      for (Eigen::Index t = 0; t < n; ++t) {
        double mean = 0.0, variance = 0.0;
        for (Eigen::Index i = 0; i < c; ++i) mean += x(i, t);
        mean /= double(c);
        for (Eigen::Index i = 0; i < c; ++i) variance += (x(i, t) - mean) * (x(i, t) - mean);
        variance /= double(c);
        const double inv = 1.0 / std::sqrt(variance + epsilon);
        std::vector<float> want_normalized(c), want_y(c);
        for (Eigen::Index i = 0; i < c; ++i) {
          want_normalized[i] = float((x(i, t) - mean) * inv);
          want_y[i] = float((x(i, t) - mean) * inv * gamma(i) + beta(i));
        }
        const std::string what = variant_.name + ": C = " + std::to_string(c) + ", offset " +
                                 std::to_string(offset) + ", column " + std::to_string(t);
        EXPECT_NEAR(inv_std(t), inv, kFp32Bound * inv) << what;
        double norm = 0.0;
        if (c > 1) {  // one channel normalises to 0
          EXPECT_LT(normalised_error(normalized.col(t).data(), want_normalized.data(), c, &norm),
                    kFp32Bound)
              << what;
        }
        EXPECT_LT(normalised_error(y.col(t).data(), want_y.data(), c, &norm), kFp32Bound) << what;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, IsaMath, ::testing::ValuesIn(built_variant_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
