// The op table (in the spirit of ggml's test-backend-ops): every op of the device-op interface
// (tts/kernels/ops/backend.h), on every backend this build has, at several shapes (R = 32, 64, 128
// and sizes that are no multiple of a warp or a vector: 1, 3, 33, 37, 45, 67, 97), against a
// reference. The CPU backend's reference is the scalar one (tests/support/scalar_ops.h: loops in
// double from each op's definition); any other backend's is the CPU backend, so that a pass gives
// the same numbers on every device. Operands sit in the middle rows of taller buffers (a leading
// dimension above their rows, as a layer's slice of stacked activations has), and the rows around
// them must come back untouched. Errors are normalised (‖got − want‖ / ‖want‖, with ‖want‖ > 0
// asserted, so a zero or sign-flipped result fails) within the project's bounds: 1e-5 for fp32;
// data movement (copies, shifts, gathers, masks) must be exact. Without a GPU the CUDA rows skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backend_op_table.h"
#include "scalar_ops.h"
#include "tts/kernels/device.h"
#include "tts/kernels/ops/backends.h"
#include "tts/kernels/ops/buffer.h"

namespace {

using namespace tts::testing::op_table;  // NOLINT: the table's vocabulary

TEST_P(BackendOps, UploadDownloadSetZeroCopy) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed);
    check([&](Backend& b) { return Outputs{Operand(b, x).get()}; }, [&] { return Outputs{x}; },
          kExact);
    check(
        [&](Backend& b) {
          Operand y(b, x);
          b.set_zero(y.view());
          return Outputs{y.get()};
        },
        [&] { return Outputs{Matrix::Zero(s.rows, s.cols)}; }, kExact);
    check(
        [&](Backend& b) {
          Operand from(b, x), to(b, Matrix::Zero(s.rows, s.cols), 1);
          b.copy(from.view(), to.view());
          return Outputs{to.get()};
        },
        [&] { return Outputs{x}; }, kExact);
  });
}

TEST_P(BackendOps, AddMultiply) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed),
                 y = random_matrix(s.rows, s.cols, seed + 1);
    check(
        [&](Backend& b) {
          Operand a(b, x), out(b, y);
          b.add(a.view(), out.view());
          return Outputs{out.get()};
        },
        [&] { return Outputs{Matrix(x + y)}; }, kExact);
    check(
        [&](Backend& b) {
          Operand a(b, x), c(b, y), out(b, y, 1);
          b.multiply(a.view(), c.view(), out.view());
          b.multiply(a.view(), c.view(), c.view());  // in place
          return Outputs{out.get(), c.get()};
        },
        [&] {
          return Outputs{x.cwiseProduct(y), x.cwiseProduct(y)};
        },
        kExact);
  });
}

TEST_P(BackendOps, Gemm) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int m = s.rows, n = s.cols, k = s.rows + 7;
    for (Transpose ta : {Transpose::kNo, Transpose::kYes})
      for (Transpose tb : {Transpose::kNo, Transpose::kYes})
        for (float beta : {0.0f, 1.0f}) {
          SCOPED_TRACE(std::string(ta == Transpose::kYes ? "T" : "N") +
                       (tb == Transpose::kYes ? "T" : "N") + " beta " + std::to_string(beta));
          const Matrix a =
              ta == Transpose::kYes ? random_matrix(k, m, seed) : random_matrix(m, k, seed);
          const Matrix bm =
              tb == Transpose::kYes ? random_matrix(n, k, seed + 1) : random_matrix(k, n, seed + 1);
          const Matrix c = random_matrix(m, n, seed + 2);
          check(
              [&](Backend& b) {
                Operand oa(b, a), ob(b, bm), oc(b, c);
                b.gemm(oc.view(), oa.view(), ta, ob.view(), tb, 0.75f, beta, GemmPrecision::kFp32);
                return Outputs{oc.get()};
              },
              [&] { return Outputs{scalar::gemm(c, a, ta, bm, tb, 0.75f, beta)}; }, kFp32Bound);
        }
  });
}

// bf16 GEMMs round both operands to bf16 (8-bit mantissa), then accumulate in fp32: the CPU, which
// has none, refuses them; another backend must match the CPU's fp32 GEMM of the rounded operands.
TEST_P(BackendOps, GemmBf16) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix a = random_matrix(s.rows, s.rows + 9, seed);
    const Matrix bm = random_matrix(s.rows + 9, s.cols, seed + 1);
    auto run = [&](Backend& b, const Matrix& x, const Matrix& y, GemmPrecision precision) {
      Operand oa(b, x), ob(b, y), oc(b, Matrix::Zero(s.rows, s.cols));
      b.gemm(oc.view(), oa.view(), Transpose::kNo, ob.view(), Transpose::kNo, 1.0f, 0.0f,
             precision);
      return Outputs{oc.get()};
    };
    if (is_cpu()) {
      EXPECT_THROW(run(backend(), a, bm, GemmPrecision::kBf16), std::invalid_argument);
      return;
    }
    auto rounded = [](const Matrix& m) -> Matrix {
      return m.cast<Eigen::bfloat16>().cast<float>();
    };
    expect_close(run(backend(), a, bm, GemmPrecision::kBf16),
                 run(tts::kernels::cpu_backend(), rounded(a), rounded(bm), GemmPrecision::kFp32),
                 kFp32Bound);
  });
}

// fp16 GEMMs round both operands to IEEE half (11-bit significand, nearest even), then accumulate
// in fp32: as for bf16, the CPU refuses them and another backend must match the CPU's fp32 GEMM of
// the rounded operands to fp32 rounding (the rounding of the inputs is the same on both sides). An
// operand beyond fp16's range (65504) becomes inf, and so does the product: loss scaling relies on
// that to detect overflow.
TEST_P(BackendOps, GemmFp16) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix a = random_matrix(s.rows, s.rows + 9, seed);
    const Matrix bm = random_matrix(s.rows + 9, s.cols, seed + 1);
    auto run = [&](Backend& b, const Matrix& x, const Matrix& y, GemmPrecision precision) {
      Operand oa(b, x), ob(b, y), oc(b, Matrix::Zero(s.rows, s.cols));
      b.gemm(oc.view(), oa.view(), Transpose::kNo, ob.view(), Transpose::kNo, 1.0f, 0.0f,
             precision);
      return Outputs{oc.get()};
    };
    if (is_cpu()) {
      EXPECT_THROW(run(backend(), a, bm, GemmPrecision::kFp16), std::invalid_argument);
      return;
    }
    auto rounded = [](const Matrix& m) -> Matrix { return m.cast<Eigen::half>().cast<float>(); };
    expect_close(run(backend(), a, bm, GemmPrecision::kFp16),
                 run(tts::kernels::cpu_backend(), rounded(a), rounded(bm), GemmPrecision::kFp32),
                 kFp32Bound);
    if (s.rows == 0 || s.cols == 0) return;
    Matrix huge = a;
    huge(0, 0) = 70000.0f;  // rounds to +inf in fp16
    const Matrix positive = Matrix::Constant(bm.rows(), bm.cols(), 0.5f);
    const Matrix product = run(backend(), huge, positive, GemmPrecision::kFp16)[0];
    EXPECT_TRUE(std::isinf(product(0, 0))) << product(0, 0);
  });
}

// By a power of two (the loss scale's case) the product is exact, so the bound is exact too.
TEST_P(BackendOps, Scale) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed);
    check(
        [&](Backend& b) {
          Operand ox(b, x);
          b.scale(ox.view(), 65536.0f);
          return Outputs{ox.get()};
        },
        [&] { return Outputs{Matrix(x * 65536.0f)}; }, kExact);
  });
}

TEST_P(BackendOps, AddBiasAndRowSums) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed), bias = random_matrix(s.rows, 1, seed + 1);
    check(
        [&](Backend& b) {
          Operand ox(b, x), ob(b, bias);
          b.add_bias(ox.view(), ob.view());
          return Outputs{ox.get()};
        },
        [&] { return Outputs{scalar::add_bias(x, bias)}; }, kExact);
    check(
        [&](Backend& b) {
          Operand ox(b, x), out(b, bias);
          b.accumulate_row_sums(out.view(), ox.view());
          return Outputs{out.get()};
        },
        [&] { return Outputs{scalar::row_sums(bias, x)}; }, kFp32Bound);
  });
}

TEST_P(BackendOps, Relu) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed), dy = random_matrix(s.rows, s.cols, 9);
    const Matrix y = scalar::relu(x);
    check(
        [&](Backend& b) {
          Operand ox(b, x), oy(b, x, 1);
          b.relu_forward(ox.view(), oy.view());
          b.relu_forward(ox.view(), ox.view());  // in place
          return Outputs{oy.get(), ox.get()};
        },
        [&] {
          return Outputs{y, y};
        },
        kExact);
    check(
        [&](Backend& b) {
          Operand ody(b, dy), oy(b, y);
          b.relu_backward(ody.view(), oy.view(), ody.view());
          return Outputs{ody.get()};
        },
        [&] { return Outputs{scalar::relu_backward(dy, y)}; }, kExact);
  });
}

TEST_P(BackendOps, Gate) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int r = s.rows, n = s.cols;
    const Matrix z = random_matrix(2 * r, n, seed), d = random_matrix(r, n, seed + 1);
    const Outputs ref = scalar::gate_forward(z);
    check(
        [&](Backend& b) {
          Operand oz(b, z), gated(b, Matrix::Zero(r, n)), t(b, Matrix::Zero(r, n), 0),
              sg(b, Matrix::Zero(r, n), 0);
          b.gate_forward(oz.view(), gated.view(), t.view(), sg.view());
          return Outputs{gated.get(), t.get(), sg.get()};
        },
        [&] { return ref; }, kFp32Bound);
    check(
        [&](Backend& b) {
          Operand od(b, d), t(b, ref[1], 0), sg(b, ref[2], 0), dz(b, Matrix::Zero(2 * r, n));
          b.gate_backward(od.view(), t.view(), sg.view(), dz.view());
          return Outputs{dz.get()};
        },
        [&] { return Outputs{scalar::gate_backward(d, ref[1], ref[2])}; }, kFp32Bound);
  });
}

TEST_P(BackendOps, CausalShift) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed), dx = random_matrix(s.rows, s.cols, 3);
    const int segments = s.cols % 4 == 0 ? 4 : 1, length = s.cols / segments;
    for (int shift : {0, 1, 3, length, length + 2}) {
      SCOPED_TRACE("shift " + std::to_string(shift) + ", segments " + std::to_string(segments));
      check(
          [&](Backend& b) {
            Operand ox(b, x), out(b, dx);
            b.causal_shift(ox.view(), shift, segments, out.view());
            return Outputs{out.get()};
          },
          [&] { return Outputs{scalar::causal_shift(x, shift, segments)}; }, kExact);
      check(
          [&](Backend& b) {
            Operand ox(b, x), out(b, dx);
            b.causal_shift_backward(ox.view(), shift, segments, out.view());
            return Outputs{out.get()};
          },
          [&] { return Outputs{scalar::causal_shift_backward(x, shift, segments, dx)}; }, kExact);
    }
  });
}

TEST_P(BackendOps, InterpolatedColumns) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int hop = 3, frames = s.cols / hop + 2;
    std::vector<std::int32_t> index(s.cols);
    std::vector<float> weight(s.cols);
    for (int n = 0; n < s.cols; ++n) {
      index[n] = n / hop;
      weight[n] = static_cast<float>(n % hop) / hop;
    }
    const Matrix f = random_matrix(s.rows, frames, seed), out = random_matrix(s.rows, s.cols, 4);
    const Matrix d_frames = random_matrix(s.rows, frames, seed + 1);
    check(
        [&](Backend& b) {
          const auto at = b.make_interpolation();
          at->assign(index, weight, frames);
          Operand of(b, f), o(b, out);
          b.add_interpolated_columns(of.view(), *at, o.view());
          return Outputs{o.get()};
        },
        [&] { return Outputs{scalar::interpolate(f, index, weight, out)}; }, kFp32Bound);
    check(
        [&](Backend& b) {
          const auto at = b.make_interpolation();
          at->assign(index, weight, frames);
          Operand d_out(b, out), od(b, d_frames);
          b.add_interpolated_columns_backward(d_out.view(), *at, od.view());
          return Outputs{od.get()};
        },
        [&] { return Outputs{scalar::interpolate_backward(out, index, weight, d_frames)}; },
        kFp32Bound);
    // Positions out of order (a device sums sorted ones without a plan, these with one).
    std::vector<std::int32_t> reversed(index.rbegin(), index.rend());
    std::vector<float> reversed_weight(weight.rbegin(), weight.rend());
    check(
        [&](Backend& b) {
          const auto at = b.make_interpolation();
          at->assign(reversed, reversed_weight, frames);
          Operand d_out(b, out), od(b, d_frames);
          b.add_interpolated_columns_backward(d_out.view(), *at, od.view());
          return Outputs{od.get()};
        },
        [&] {
          return Outputs{scalar::interpolate_backward(out, reversed, reversed_weight, d_frames)};
        },
        kFp32Bound);
  });
}

TEST_P(BackendOps, Embedding) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int classes = 11;  // fewer than the columns: most ids repeat
    const auto ids = random_ids(s.cols, classes, seed);
    const Matrix table = random_matrix(s.rows, classes, seed + 1);
    const Matrix d_out = random_matrix(s.rows, s.cols, seed + 2);
    check(
        [&](Backend& b) {
          const auto i = b.make_indices();
          i->assign(ids, classes);
          Operand t(b, table), out(b, Matrix::Zero(s.rows, s.cols));
          b.embedding_lookup(t.view(), *i, out.view());
          return Outputs{out.get()};
        },
        [&] { return Outputs{scalar::gather(table, ids)}; }, kExact);
    check(
        [&](Backend& b) {
          const auto i = b.make_indices();
          i->assign(ids, classes);
          Operand d(b, d_out), t(b, table);
          b.embedding_backward(d.view(), *i, t.view());
          return Outputs{t.get()};
        },
        [&] { return Outputs{scalar::scatter(d_out, ids, table)}; }, kFp32Bound);
  });
}

// The adjoint of a lookup whose ids are far from uniform, as in real recordings (silence is one
// μ-law class): one list of thousands of columns, lists of 65 and 64 (around a device's chunk
// length), one of a single column, classes never used. Within fp32 rounding of the reference, and
// the same bits on a second run.
TEST_P(BackendOps, EmbeddingBackwardOfLongLists) {
  const int rows = 64, classes = 12;
  std::vector<std::int32_t> ids;
  ids.insert(ids.end(), 3500, 0);
  ids.insert(ids.end(), 65, 1);
  ids.insert(ids.end(), 64, 2);
  ids.push_back(3);
  const auto rest = random_ids(900, 6, 5);  // classes 4 to 9; 10 and 11 unused
  for (std::int32_t id : rest) ids.push_back(4 + id);
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(6));
  const int cols = static_cast<int>(ids.size());
  const Matrix table = random_matrix(rows, classes, 7), d_out = random_matrix(rows, cols, 8);
  auto run = [&](Backend& b) {
    const auto i = b.make_indices();
    i->assign(ids, classes);
    Operand d(b, d_out), t(b, table);
    b.embedding_backward(d.view(), *i, t.view());
    return Outputs{t.get()};
  };
  check(
      run, [&] { return Outputs{scalar::scatter(d_out, ids, table)}; }, kFp32Bound);
  expect_close(run(backend()), run(backend()), kExact);
}

TEST_P(BackendOps, RepeatColumns) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    std::vector<int> durations(s.cols);
    std::mt19937_64 rng(seed);
    for (int& d : durations) d = static_cast<int>(rng() % 5);  // 0 to 4 frames, zeros included
    durations[0] = 2;
    const auto owner = scalar::owners(durations);
    const int frames = static_cast<int>(owner.size());
    const Matrix x = random_matrix(s.rows, s.cols, seed + 1);
    const Matrix d_out = random_matrix(s.rows, frames, seed + 2);
    check(
        [&](Backend& b) {
          const auto r = b.make_repeats();
          r->assign(durations);
          Operand ox(b, x), out(b, Matrix::Zero(s.rows, frames));
          b.repeat_columns(ox.view(), *r, out.view());
          return Outputs{out.get()};
        },
        [&] { return Outputs{scalar::gather(x, owner)}; }, kExact);
    check(
        [&](Backend& b) {
          const auto r = b.make_repeats();
          r->assign(durations);
          Operand d(b, d_out), dx(b, x);
          b.repeat_columns_backward(d.view(), *r, dx.view());
          return Outputs{dx.get()};
        },
        [&] { return Outputs{scalar::scatter(d_out, owner, x)}; }, kFp32Bound);
  });
}

TEST_P(BackendOps, Conv1dUnfold) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const std::vector<int> lengths = {s.cols / 3, 0, s.cols - s.cols / 3};  // an empty one too
    const Matrix x = random_matrix(s.rows, s.cols, seed);
    for (int k : {1, 3, 5}) {
      SCOPED_TRACE("kernel " + std::to_string(k));
      const Matrix d_unfolded = random_matrix(k * s.rows, s.cols, seed + k);
      check(
          [&](Backend& b) {
            const auto l = b.make_lengths();
            l->assign(lengths);
            Operand ox(b, x), out(b, Matrix::Zero(k * s.rows, s.cols));
            b.conv1d_unfold(ox.view(), k, *l, out.view());
            return Outputs{out.get()};
          },
          [&] { return Outputs{scalar::unfold(x, k, lengths)}; }, kExact);
      check(
          [&](Backend& b) {
            const auto l = b.make_lengths();
            l->assign(lengths);
            Operand d(b, d_unfolded), dx(b, x);
            b.conv1d_unfold_backward(d.view(), k, *l, dx.view());
            return Outputs{dx.get()};
          },
          [&] { return Outputs{scalar::unfold_backward(d_unfolded, k, lengths, x)}; }, kFp32Bound);
    }
  });
}

TEST_P(BackendOps, LayerNorm) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    if (s.rows < 2) return;  // one channel normalises to zero: nothing to compare
    const Matrix x = random_matrix(s.rows, s.cols, seed), dy = random_matrix(s.rows, s.cols, 5);
    const Matrix gamma = random_matrix(s.rows, 1, seed + 1), beta = random_matrix(s.rows, 1, 6);
    const float epsilon = 1e-5f;
    const Outputs ref = scalar::layer_norm(x, gamma, beta, epsilon);
    check(
        [&](Backend& b) {
          Operand ox(b, x), g(b, gamma), bt(b, beta), normalized(b, x), inv_std(b, ref[1], 0);
          b.layer_norm_forward(ox.view(), g.view(), bt.view(), epsilon, normalized.view(),
                               inv_std.view(), ox.view());  // y in place of x
          return Outputs{normalized.get(), inv_std.get(), ox.get()};
        },
        [&] { return ref; }, kFp32Bound);
    check(
        [&](Backend& b) {
          Operand ody(b, dy), n(b, ref[0]), inv_std(b, ref[1], 0), g(b, gamma), dx(b, x),
              dg(b, gamma), db(b, beta);
          b.layer_norm_backward(ody.view(), n.view(), inv_std.view(), g.view(), dx.view(),
                                dg.view(), db.view());
          return Outputs{dx.get(), dg.get(), db.get()};
        },
        [&] { return scalar::layer_norm_backward(dy, ref[0], ref[1], gamma, gamma, beta); },
        kFp32Bound);
  });
}

TEST_P(BackendOps, DropoutMask) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    check(
        [&](Backend& b) {
          Operand keep(b, Matrix::Zero(s.rows, s.cols), 0);
          b.dropout_mask(0.3f, seed, keep.view());
          return Outputs{keep.get()};
        },
        [&] { return Outputs{scalar::dropout_mask(0.3f, seed, s.rows, s.cols)}; }, kExact);
  });
}

TEST_P(BackendOps, SoftmaxCrossEntropy) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    if (s.rows < 2) return;  // one class: zero loss and gradient
    const Matrix logits = random_matrix(s.rows, s.cols, seed);
    const auto targets = random_ids(s.cols, s.rows, seed + 1);
    check(
        [&](Backend& b) {
          const auto t = b.make_indices();
          t->assign(targets, 0);
          Operand l(b, logits, 0), d(b, Matrix::Zero(s.rows, s.cols), 0);
          const double loss = b.softmax_cross_entropy(l.view(), *t, d.view());
          return Outputs{Matrix::Constant(1, 1, static_cast<float>(loss)), d.get()};
        },
        [&] {
          Matrix d;
          const double loss = scalar::softmax_cross_entropy(logits, targets, &d);
          return Outputs{Matrix::Constant(1, 1, static_cast<float>(loss)), d};
        },
        kFp32Bound);
  });
}

TEST_P(BackendOps, RegressionLosses) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix p = random_matrix(s.rows, s.cols, seed), t = random_matrix(s.rows, s.cols, 8);
    for (bool l1 : {false, true}) {
      SCOPED_TRACE(l1 ? "l1_loss" : "mse_loss");
      check(
          [&](Backend& b) {
            Operand op(b, p), ot(b, t), d(b, Matrix::Zero(s.rows, s.cols));
            const double loss = l1 ? b.l1_loss(op.view(), ot.view(), d.view(), 0.5f)
                                   : b.mse_loss(op.view(), ot.view(), d.view(), 0.5f);
            return Outputs{Matrix::Constant(1, 1, static_cast<float>(loss)), d.get()};
          },
          [&] {
            Matrix d;
            const double loss = scalar::regression_loss(p, t, 0.5f, l1, &d);
            return Outputs{Matrix::Constant(1, 1, static_cast<float>(loss)), d};
          },
          kFp32Bound);
    }
  });
}

// Mismatched shapes are std::invalid_argument on every backend, never a write out of bounds.
TEST_P(BackendOps, ShapeErrorsAreExceptions) {
  Backend& b = backend();
  Operand a(b, Matrix::Ones(4, 6)), c(b, Matrix::Ones(4, 5)), tall(b, Matrix::Ones(8, 6));
  Operand bias(b, Matrix::Ones(3, 1));
  EXPECT_THROW(b.gemm(c.view(), a.view(), Transpose::kNo, a.view(), Transpose::kNo, 1.0f, 0.0f,
                      GemmPrecision::kFp32),
               std::invalid_argument);
  EXPECT_THROW(b.add_bias(a.view(), bias.view()), std::invalid_argument);
  EXPECT_THROW(b.copy(a.view(), c.view()), std::invalid_argument);
  EXPECT_THROW(b.add(a.view(), c.view()), std::invalid_argument);
  EXPECT_THROW(b.relu_forward(a.view(), c.view()), std::invalid_argument);
  EXPECT_THROW(b.gate_forward(tall.view(), c.view(), a.view(), a.view()), std::invalid_argument);
  EXPECT_THROW(b.causal_shift(a.view(), 1, 1, c.view()), std::invalid_argument);
  EXPECT_THROW(b.causal_shift(a.view(), 1, 4, a.view()), std::invalid_argument);  // 6 ≠ 4·k
  const auto ids = b.make_indices();
  ids->assign({0, 1, 0}, 2);
  EXPECT_THROW(b.embedding_lookup(a.view(), *ids, c.view()), std::invalid_argument);
}

// How a pass meets host arrays (tts/kernels/ops/buffer.h): read (weights, mel) and added into
// (gradients). On a host-resident backend both are the host array itself, so nothing is copied;
// elsewhere the sums reach the host only at finish_adding_to_host(), added to what it held.
TEST_P(BackendOps, HostArrays) {
  const Matrix host = random_matrix(33, 5, 1), sums = random_matrix(33, 5, 2);
  Buffer staging(backend()), accumulator(backend());
  const View read = staging.read_from_host(host.data(), 33, 5);
  if (backend().host_resident()) {
    EXPECT_EQ(read.data, host.data());
  }
  Matrix back(33, 5);
  backend().download(read, back.data());
  EXPECT_EQ(back, host);

  Matrix target = host;
  const View into = accumulator.add_to_host(target.data(), 33, 5);
  if (backend().host_resident()) {
    EXPECT_EQ(into.data, target.data());
  }
  Operand addend(backend(), sums);
  backend().add(addend.view(), into);
  accumulator.finish_adding_to_host(target.data());
  EXPECT_EQ(target, Matrix(host + sums));
}

// Index data lives in its backend's memory: another backend refuses it rather than read it.
TEST_P(BackendOps, RefusesAnotherBackendsIndices) {
  if (is_cpu()) GTEST_SKIP() << "one backend: nothing to mix up";
  const auto ids = tts::kernels::cpu_backend().make_indices();
  ids->assign({0, 1}, 2);
  Operand table(backend(), Matrix::Ones(3, 2)), out(backend(), Matrix::Zero(3, 2));
  EXPECT_THROW(backend().embedding_lookup(table.view(), *ids, out.view()), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendOps, ::testing::ValuesIn(built_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
