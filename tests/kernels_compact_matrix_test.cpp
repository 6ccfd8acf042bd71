// Weights compacted to fp16 and int8 (tts/kernels/compact_matrix.h): the conversions, checked on
// every finite half and on the rounding of the points between them; the int8 quantisation's
// error bound; the rounding of an input vector for the int8 products; and every ISA variant of
// their GEMVs that this machine can run, forced in turn as tests/kernels_isa_test.cpp forces the
// fp32 GEMV's, against a double-precision reference over the weights as stored (and, for int8, the
// input as rounded), at the WaveNet's shapes and at sizes that are not multiples of any vector
// width. The int8 variants sum the same integers, so they agree bit for bit.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "forced_isa_variant.h"
#include "gpu_parity.h"
#include "tts/kernels/compact_matrix.h"
#include "tts/kernels/cpu_isa.h"

namespace {

using tts::kernels::CompactMatrix;
using tts::kernels::cpu_isa;
using tts::kernels::Matrix;
using tts::kernels::QuantisedVector;
using tts::kernels::Vector;
using tts::kernels::WeightPrecision;
using tts::testing::normalised_error;

constexpr double kFp32Bound = 1e-5;

// The value of half bit pattern h (finite), from its fields, in double.
double half_value(unsigned h) {
  const int exponent = static_cast<int>((h >> 10) & 0x1f);
  const double mantissa = h & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                         : std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// Compacts a column of values to fp16 and reads back what the product multiplies by.
std::vector<float> through_fp16(const std::vector<float>& values) {
  Matrix m(static_cast<Eigen::Index>(values.size()), 1);
  for (std::size_t i = 0; i < values.size(); ++i) m(static_cast<Eigen::Index>(i), 0) = values[i];
  const Matrix w = CompactMatrix(m, WeightPrecision::kFp16).widened();
  return std::vector<float>(w.data(), w.data() + w.size());
}

TEST(CompactMatrix, EveryFiniteHalfSurvivesTheRoundTripExactly) {
  std::vector<float> values;
  for (unsigned h = 0; h < 0x10000; ++h)
    if (((h >> 10) & 0x1f) != 0x1f) values.push_back(static_cast<float>(half_value(h)));
  const std::vector<float> back = through_fp16(values);
  for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(back[i], values[i]) << "half #" << i;
  // Negative zero keeps its sign.
  EXPECT_TRUE(std::signbit(through_fp16({-0.0f})[0]));
}

TEST(CompactMatrix, Fp16RoundsToNearestTiesToEven) {
  std::vector<float> midpoints, above, below;
  std::vector<double> even, upper, lower;
  for (unsigned h = 0; h < 0x7bff; ++h) {  // each pair of neighbouring positive finite halves
    const double a = half_value(h), b = half_value(h + 1), mid = (a + b) / 2;
    midpoints.push_back(static_cast<float>(mid));  // exact: 12 significant bits
    even.push_back((h & 1) ? b : a);
    const float up =
        std::nextafter(static_cast<float>(mid), std::numeric_limits<float>::infinity());
    const float down = std::nextafter(static_cast<float>(mid), 0.0f);
    above.push_back(up);
    upper.push_back(b);
    below.push_back(down);
    lower.push_back(a);
  }
  const std::vector<float> m = through_fp16(midpoints), u = through_fp16(above),
                           d = through_fp16(below);
  for (std::size_t i = 0; i < midpoints.size(); ++i) {
    ASSERT_EQ(double(m[i]), even[i]) << "midpoint " << midpoints[i];
    ASSERT_EQ(double(u[i]), upper[i]) << "just above " << midpoints[i];
    ASSERT_EQ(double(d[i]), lower[i]) << "just below " << midpoints[i];
  }
  // Below half the smallest subnormal: zero; from 65520 up: refused (infinite).
  EXPECT_EQ(through_fp16({std::ldexp(1.0f, -25)})[0], 0.0f);
  EXPECT_EQ(through_fp16({65519.0f})[0], 65504.0f);
  EXPECT_THROW(CompactMatrix(Matrix::Constant(1, 1, 65520.0f), WeightPrecision::kFp16),
               std::invalid_argument);
}

TEST(CompactMatrix, Int8KeepsEachWeightWithinHalfItsRowsStep) {
  std::mt19937 rng(3);
  Matrix a(37, 53);
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    std::normal_distribution<float> normal(0.0f, 0.01f * static_cast<float>(i + 1));
    for (Eigen::Index j = 0; j < a.cols(); ++j) a(i, j) = normal(rng);
  }
  a.row(5).setZero();
  const Matrix w = CompactMatrix(a, WeightPrecision::kInt8).widened();
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const float step = a.row(i).cwiseAbs().maxCoeff() / 127.0f;
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      ASSERT_LE(std::abs(w(i, j) - a(i, j)), 0.5f * step * (1.0f + 1e-5f)) << i << ", " << j;
    Eigen::Index at = 0;
    a.row(i).cwiseAbs().maxCoeff(&at);
    ASSERT_NEAR(std::abs(w(i, at)), std::abs(a(i, at)), 1e-6f * std::abs(a(i, at)));
  }
  EXPECT_EQ(w.row(5).cwiseAbs().maxCoeff(), 0.0f);
  // int8's scales take what fp16 cannot.
  EXPECT_EQ(CompactMatrix(Matrix::Constant(1, 2, 1e6f), WeightPrecision::kInt8).widened()(0, 1),
            1e6f);
}

TEST(CompactMatrix, RefusesWhatItCannotHoldNamingTheWeight) {
  Matrix a = Matrix::Ones(3, 4);
  EXPECT_THROW(CompactMatrix(a, WeightPrecision::kFp32), std::invalid_argument);
  a(2, 1) = std::numeric_limits<float>::quiet_NaN();
  for (const WeightPrecision p : {WeightPrecision::kFp16, WeightPrecision::kInt8}) {
    try {
      CompactMatrix m(a, p);
      FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("(2, 1)"), std::string::npos) << e.what();
    }
  }
  const CompactMatrix m(Matrix::Ones(3, 4), WeightPrecision::kFp16);
  Vector x(5), y(3);
  EXPECT_THROW(m.gemv(y, x), std::invalid_argument);
  EXPECT_EQ(m.bytes(), 3u * 4u * 2u);
  // int8: one tile of 8 rows × 4 columns (rows padded), 3 row scales and 8 row sums.
  const CompactMatrix q(Matrix::Ones(3, 4), WeightPrecision::kInt8);
  EXPECT_EQ(q.bytes(), 8u * 4u + 3u * 4u + 8u * 4u);
  EXPECT_THROW(q.gemv(y, QuantisedVector(Vector::Ones(5))), std::invalid_argument);
  EXPECT_THROW(m.gemv(y, QuantisedVector(Vector::Ones(4))), std::invalid_argument);
  EXPECT_THROW(CompactMatrix(Matrix::Ones(1, 131073), WeightPrecision::kInt8),
               std::invalid_argument);
}

TEST(CompactMatrix, PrecisionNamesRoundTrip) {
  for (const WeightPrecision p :
       {WeightPrecision::kFp32, WeightPrecision::kFp16, WeightPrecision::kInt8})
    EXPECT_EQ(tts::kernels::parse_weight_precision(tts::kernels::weight_precision_name(p)), p);
  try {
    tts::kernels::parse_weight_precision("bf16");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fp32, fp16 or int8"), std::string::npos) << e.what();
  }
}

using tts::testing_support::built_variant_names;

class CompactGemvVariant : public tts::testing_support::ForcedIsaVariant {};

TEST_P(CompactGemvVariant, AgreesWithTheScalarReferenceOverTheStoredWeights) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // Rows cover the kernels' 128-, 64-, 16- and 8-row blocks and every remainder; (128, 64),
  // (64, 64), (256, 64) and (256, 256) are the sampler's matrices at R = 64, S = 256.
  const std::vector<std::array<Eigen::Index, 2>> shapes = {
      {1, 1},     {1, 7},    {3, 5},    {7, 3},     {8, 8},      {15, 9},  {16, 16},
      {17, 33},   {31, 2},   {63, 64},  {64, 64},   {65, 129},   {79, 80}, {128, 64},
      {129, 127}, {200, 37}, {256, 64}, {256, 256}, {257, 1281}, {320, 3}, {1000, 11}};
  for (const WeightPrecision precision : {WeightPrecision::kFp16, WeightPrecision::kInt8})
    for (const auto& [m, n] : shapes)
      for (const bool accumulate : {false, true}) {
        // A block of a bigger matrix (an outer stride), as the sampler's slices are.
        Matrix storage(m + 3, n);
        for (Eigen::Index k = 0; k < storage.size(); ++k) storage.data()[k] = u(rng);
        const CompactMatrix a(storage.topRows(m), precision);
        const Matrix w = a.widened();
        Vector x(n), y0(m);
        for (auto& v : x) v = u(rng);
        for (auto& v : y0) v = u(rng);
        // int8 multiplies the input as rounded.
        const Vector multiplied =
            precision == WeightPrecision::kInt8 ? QuantisedVector(x).dequantised() : x;
        std::vector<float> reference(static_cast<std::size_t>(m));
        for (Eigen::Index i = 0; i < m; ++i) {
          double s = accumulate ? y0(i) : 0.0;
          for (Eigen::Index j = 0; j < n; ++j) s += double(w(i, j)) * multiplied(j);
          reference[static_cast<std::size_t>(i)] = static_cast<float>(s);
        }
        Vector y = y0;
        a.gemv(y, x, accumulate);
        double norm = 0.0;
        const double error = normalised_error(y.data(), reference.data(), m, &norm);
        ASSERT_GT(norm, 0.0);
        EXPECT_LT(error, kFp32Bound)
            << variant_.name << " " << tts::kernels::weight_precision_name(precision) << ": " << m
            << " x " << n << (accumulate ? ", accumulating" : "");
      }
}

// Each element becomes the nearest multiple of max|x| / 63 (ties to even), the largest magnitude
// exactly ±63 steps; a zero vector rounds to zeros, one with a NaN or an infinity to a NaN scale.
TEST_P(CompactGemvVariant, RoundsAnInputVectorToNearestStepsOfItsLargestMagnitude) {
  std::mt19937 rng(23);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  for (const Eigen::Index n : {1, 3, 7, 8, 31, 32, 33, 64, 100, 129, 1300}) {
    Vector x(n);
    for (auto& v : x) v = normal(rng);
    const Eigen::Index at = n / 2;
    x(at) = 9.0f;                           // the largest magnitude
    if (n > 1) x(0) = 9.0f * 2.5f / 63.0f;  // a tie: 2.5 steps rounds to 2
    const QuantisedVector q(x);
    ASSERT_EQ(q.size(), n);
    EXPECT_EQ(q.scale(), 9.0f / 63.0f) << n;
    const float inverse = 63.0f / 9.0f;
    for (Eigen::Index j = 0; j < n; ++j)
      ASSERT_EQ(q.data()[j], static_cast<std::int8_t>(std::nearbyint(x(j) * inverse)))
          << variant_.name << ": element " << j << " of " << n;
    EXPECT_EQ(q.data()[at], 63);
    if (n > 1) {
      EXPECT_EQ(q.data()[0], 2);
    }
    for (Eigen::Index j = n; j < (n + 3) / 4 * 4; ++j) EXPECT_EQ(q.data()[j], 0) << "padding";
    EXPECT_LE((q.dequantised() - x).cwiseAbs().maxCoeff(), 0.5f * q.scale() * 1.0001f);
  }
  const QuantisedVector zero(Vector::Zero(10));
  EXPECT_EQ(zero.scale(), 0.0f);
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    for (const Eigen::Index where : {0, 17, 40}) {  // in a full register and in the tail
      Vector x = Vector::Ones(41);
      x(where) = bad;
      EXPECT_TRUE(std::isnan(QuantisedVector(x).scale())) << variant_.name << " at " << where;
      Vector y(2);
      CompactMatrix(Matrix::Ones(2, 41), WeightPrecision::kInt8).gemv(y, x);
      EXPECT_TRUE(std::isnan(y(0)) && std::isnan(y(1))) << variant_.name;
    }
  }
}

// Every variant forms the same integer sums and scales them the same way, so a product that does
// not accumulate is the same float for float; the baseline is the scalar reference.
TEST_P(CompactGemvVariant, Int8ProductsEqualTheBaselineBitForBit) {
  std::mt19937 rng(29);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& [m, n] : std::vector<std::array<Eigen::Index, 2>>{
           {64, 32}, {32, 32}, {128, 32}, {256, 128}, {37, 53}, {5, 130}}) {
    Matrix a(m, n);
    for (Eigen::Index k = 0; k < a.size(); ++k) a.data()[k] = normal(rng);
    Vector x(n);
    for (auto& v : x) v = normal(rng);
    const CompactMatrix compact(a, WeightPrecision::kInt8);
    Vector mine(m), reference(m);
    compact.gemv(mine, x);
    const std::string variant = cpu_isa();
    tts::kernels::force_cpu_isa("baseline");
    compact.gemv(reference, x);
    tts::kernels::force_cpu_isa(variant);
    for (Eigen::Index i = 0; i < m; ++i)
      ASSERT_EQ(mine(i), reference(i))
          << variant_.name << ": row " << i << " of " << m << " x " << n;
  }
}

// A dilated convolution's two halves in one pass: the two products, bit for bit.
TEST_P(CompactGemvVariant, Int8SumOfTwoProductsEqualsTheTwoProducts) {
  std::mt19937 rng(31);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& [m, n, k] : std::vector<std::array<Eigen::Index, 3>>{
           {64, 32, 32}, {128, 64, 64}, {37, 5, 11}, {8, 4, 4}, {200, 33, 7}}) {
    Matrix a(m, n), b(m, k);
    for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = normal(rng);
    for (Eigen::Index i = 0; i < b.size(); ++i) b.data()[i] = normal(rng);
    Vector x(n), u(k);
    for (auto& v : x) v = normal(rng);
    for (auto& v : u) v = normal(rng);
    const CompactMatrix ca(a, WeightPrecision::kInt8), cb(b, WeightPrecision::kInt8);
    const QuantisedVector qx(x), qu(u);
    Vector two(m), one(m);
    ca.gemv(two, qx);
    cb.gemv(two, qu, /*accumulate=*/true);
    CompactMatrix::gemv_sum(one, ca, qx, cb, qu);
    for (Eigen::Index i = 0; i < m; ++i)
      ASSERT_EQ(one(i), two(i)) << variant_.name << ": row " << i << " of " << m;
  }
  Vector y(4);
  EXPECT_THROW(CompactMatrix::gemv_sum(y, CompactMatrix(Matrix::Ones(4, 4), WeightPrecision::kInt8),
                                       QuantisedVector(Vector::Ones(4)),
                                       CompactMatrix(Matrix::Ones(5, 4), WeightPrecision::kInt8),
                                       QuantisedVector(Vector::Ones(4))),
               std::invalid_argument);
}

// The stored weights are close to the fp32 ones: a product over fp16 weights is within fp16's
// rounding (2^-11 relative per weight) of the fp32 product, int8's within its steps (the weights'
// and the input's).
TEST_P(CompactGemvVariant, ProductsStayCloseToTheFp32Product) {
  std::mt19937 rng(19);
  std::normal_distribution<float> normal(0.0f, 0.1f);
  Matrix a(256, 256);
  for (Eigen::Index k = 0; k < a.size(); ++k) a.data()[k] = normal(rng);
  Vector x(256);
  for (auto& v : x) v = normal(rng);
  const Vector exact = a * x;
  for (const auto& [precision, bound] :
       {std::pair{WeightPrecision::kFp16, 1e-3}, std::pair{WeightPrecision::kInt8, 2e-2}}) {
    Vector y(256);
    CompactMatrix(a, precision).gemv(y, x);
    double norm = 0.0;
    EXPECT_LT(normalised_error(y.data(), exact.data(), 256, &norm), bound)
        << variant_.name << " " << tts::kernels::weight_precision_name(precision);
  }
}

// int8 by default where its products were measured fastest (AVX2), fp16 where halves widen in
// hardware, fp32 on x86-64's baseline.
TEST_P(CompactGemvVariant, DefaultPrecisionIsTheOneMeasuredFastestForTheVariant) {
  const WeightPrecision expected =
#if defined(__x86_64__)
      variant_.name == "avx2"       ? WeightPrecision::kInt8
      : variant_.name == "baseline" ? WeightPrecision::kFp32
                                    : WeightPrecision::kFp16;
#elif defined(__aarch64__)
      WeightPrecision::kFp16;
#else
      WeightPrecision::kFp32;
#endif
  EXPECT_EQ(tts::kernels::default_weight_precision(), expected) << variant_.name;
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, CompactGemvVariant, ::testing::ValuesIn(built_variant_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
