// The op table's vocabulary (tests/backend_ops_test.cpp, tests/backend_fused_ops_test.cpp): random
// operands, an operand in the middle rows of a taller buffer in a backend's memory, the comparison
// of outputs within a bound, and the fixture that runs a check on each built backend against its
// reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scalar_ops.h"
#include "tts/kernels/device.h"
#include "tts/kernels/ops/backends.h"
#include "tts/kernels/ops/buffer.h"

namespace tts::testing::op_table {

namespace scalar = tts::testing::scalar;
using tts::kernels::Backend;
using tts::kernels::Buffer;
using tts::kernels::GemmPrecision;
using tts::kernels::Matrix;
using tts::kernels::Transpose;
using tts::kernels::View;
using Outputs = std::vector<Matrix>;

constexpr double kExact = 0.0;
constexpr double kFp32Bound = 1e-5;  // as tests/cuda_kernels_test.cpp
constexpr float kSentinel = 7.25f;   // fills the rows around an operand

struct Shape {
  int rows, cols;
};
const Shape kShapes[] = {{32, 64}, {64, 100}, {128, 37}, {1, 1}, {3, 5}, {33, 97}, {67, 45}};

inline Matrix random_matrix(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

inline std::vector<std::int32_t> random_ids(int count, int range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> id(0, range - 1);
  std::vector<std::int32_t> ids(count);
  for (auto& v : ids) v = id(rng);
  return ids;
}

// A matrix in the middle rows of a taller buffer in a backend's memory (pad 0: contiguous, for the
// operands an op requires contiguous).
class Operand {
 public:
  Operand(Backend& backend, const Matrix& value, int pad = 2)
      : buffer_(backend), pad_(pad), rows_(static_cast<int>(value.rows())) {
    Matrix full = Matrix::Constant(value.rows() + 2 * pad, value.cols(), kSentinel);
    full.middleRows(pad, value.rows()) = value;
    buffer_.upload(full);
  }
  View view() const { return buffer_.view().middle_rows(pad_, rows_); }
  // The value, after checking that nothing outside it changed.
  Matrix get() const {
    const Matrix full = buffer_.download();
    for (int j = 0; j < full.cols(); ++j)
      for (int i = 0; i < full.rows(); ++i)
        if (i < pad_ || i >= pad_ + rows_) {
          EXPECT_EQ(full(i, j), kSentinel) << "row " << i << " outside the view was written";
        }
    return full.middleRows(pad_, rows_);
  }

 private:
  Buffer buffer_;
  int pad_, rows_;
};

// Exact (bound 0): every value equal. Otherwise ‖got − want‖ / ‖want‖ < bound, with ‖want‖ > 0.
inline void expect_close(const Outputs& got, const Outputs& want, double bound) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    SCOPED_TRACE("output " + std::to_string(k));
    ASSERT_EQ(got[k].rows(), want[k].rows());
    ASSERT_EQ(got[k].cols(), want[k].cols());
    if (bound == kExact) {
      EXPECT_EQ((got[k] - want[k]).cwiseAbs().maxCoeff(), 0.0f);
      continue;
    }
    const double norm = want[k].cast<double>().norm();
    ASSERT_GT(norm, 0.0) << "the reference is all zeros";
    EXPECT_LT((got[k].cast<double>() - want[k].cast<double>()).norm() / norm, bound);
  }
}

class BackendOps : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "cuda") {
      if (tts::kernels::cuda_device_count() == 0)
        GTEST_SKIP() << "no CUDA device visible: the CUDA rows of the op table need a GPU "
                        "(scripts/gpu-check runs them)";
      backend_ = &tts::kernels::cuda_backend();
    } else {
      backend_ = &tts::kernels::cpu_backend();
    }
  }
  Backend& backend() { return *backend_; }
  bool is_cpu() const { return backend_ == &tts::kernels::cpu_backend(); }

  // Runs `run` on this row's backend and compares it with the row's reference: `scalar()` for the
  // CPU backend, `run` on the CPU backend for any other.
  template <typename Run, typename Scalar>
  void check(Run run, Scalar scalar, double bound) {
    const Outputs got = run(backend());
    const Outputs want = is_cpu() ? scalar() : run(tts::kernels::cpu_backend());
    expect_close(got, want, bound);
  }

 private:
  Backend* backend_ = nullptr;
};

// Runs `body(shape, seed)` for each shape, tracing which.
template <typename Body>
void for_each_shape(Body body) {
  std::uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.rows) + " × " + std::to_string(s.cols));
    body(s, seed);
    seed += 100;
  }
}

inline std::vector<std::string> built_backends() {
  std::vector<std::string> names = {"cpu"};
  if (tts::kernels::cuda_backend_built()) names.push_back("cuda");
  return names;
}

}  // namespace tts::testing::op_table
