// The op table's fused WaveNet passes and its 16-bit operands (tts/kernels/ops/backend.h): each
// fused op against its definition from the unfused ones (the scalar reference on the CPU, the CPU
// backend on any other, as in tests/backend_ops_test.cpp), and on a backend with bf16/fp16 GEMMs
// every op that writes a 16-bit view against the CPU's fp32 result rounded the same way (nearest
// even), every op that reads one against the CPU given the rounded values. The CPU refuses 16-bit
// views. A 16-bit view is read back through a GEMM with the identity, which is exact (one product
// per element, accumulated in fp32). Without a GPU the CUDA rows skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend_op_table.h"
#include "scalar_ops.h"
#include "tts/kernels/ops/backend.h"

namespace {

using namespace tts::testing::op_table;  // NOLINT: the table's vocabulary
using tts::kernels::Element;

struct Format {
  GemmPrecision precision;
  Element element;
  const char* name;
};
const Format kFormats[] = {{GemmPrecision::kBf16, Element::kBfloat16, "bf16"},
                           {GemmPrecision::kFp16, Element::kFloat16, "fp16"}};

Matrix rounded(const Matrix& m, Element element) {
  if (element == Element::kBfloat16) return m.cast<Eigen::bfloat16>().cast<float>();
  return m.cast<Eigen::half>().cast<float>();
}

// A 16-bit matrix in a backend's memory: made from fp32 values by copy() (which rounds), read back
// through an identity GEMM.
class Rounded {
 public:
  Rounded(Backend& backend, int rows, int cols, Format format) : buffer_(backend), format_(format) {
    buffer_.resize(rows, cols, format.element);
  }
  Rounded(Backend& backend, const Matrix& value, Format format)
      : Rounded(backend, static_cast<int>(value.rows()), static_cast<int>(value.cols()), format) {
    Operand source(backend, value, 0);
    backend.copy(source.view(), view());
  }
  View view() const { return buffer_.view(); }
  Matrix get() const {
    Backend& b = buffer_.backend();
    const int rows = buffer_.rows(), cols = buffer_.cols();
    Operand identity(b, Matrix::Identity(rows, rows), 0), out(b, Matrix::Zero(rows, cols), 0);
    b.gemm(out.view(), identity.view(), Transpose::kNo, view(), Transpose::kNo, 1.0f, 0.0f,
           format_.precision);
    return out.get();
  }

 private:
  Buffer buffer_;
  Format format_;
};

std::vector<std::int32_t> frame_index(int cols, int hop) {
  std::vector<std::int32_t> index(cols);
  for (int n = 0; n < cols; ++n) index[n] = n / hop;
  return index;
}

std::vector<float> frame_weight(int cols, int hop) {
  std::vector<float> weight(cols);
  for (int n = 0; n < cols; ++n) weight[n] = static_cast<float>(n % hop) / hop;
  return weight;
}

class FusedOps : public BackendOps {
 protected:
  // For the 16-bit rows: skips on the CPU after checking that it refuses them.
  bool has_16_bit() {
    if (!is_cpu()) return true;
    Buffer half(backend());
    half.resize(4, 4, Element::kBfloat16);
    Operand x(backend(), Matrix::Ones(4, 4), 0);
    EXPECT_THROW(backend().copy(x.view(), half.view()), std::invalid_argument);
    return false;
  }
};

TEST_P(FusedOps, LayerInput) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int segments = s.cols % 4 == 0 ? 4 : 1, length = s.cols / segments;
    const Matrix h = random_matrix(s.rows, s.cols, seed), bias = random_matrix(s.rows, 1, seed + 1);
    for (int shift : {1, 3, length + 1})
      for (bool with_bias : {false, true})
        for (bool in_place : {false, true}) {
          SCOPED_TRACE("shift " + std::to_string(shift) + (with_bias ? ", bias" : "") +
                       (in_place ? ", in place" : ""));
          check(
              [&](Backend& b) {
                Operand oh(b, h), ob(b, bias), out(b, Matrix::Zero(s.rows, s.cols)),
                    stacked(b, Matrix::Zero(2 * s.rows, s.cols));
                const View h_out = in_place ? oh.view() : out.view();
                b.wavenet_layer_input(oh.view(), with_bias ? ob.view() : View{}, shift, segments,
                                      h_out, stacked.view());
                return Outputs{in_place ? oh.get() : out.get(), stacked.get()};
              },
              [&] {
                const Matrix biased = with_bias ? scalar::add_bias(h, bias) : h;
                Matrix stacked(2 * s.rows, s.cols);
                stacked << scalar::causal_shift(biased, shift, segments), biased;
                return Outputs{biased, stacked};
              },
              kExact);
        }
  });
}

TEST_P(FusedOps, LayerInputBackward) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int segments = s.cols % 4 == 0 ? 4 : 1;
    const Matrix d_in = random_matrix(2 * s.rows, s.cols, seed),
                 d_h = random_matrix(s.rows, s.cols, seed + 1);
    for (int shift : {1, 5}) {
      check(
          [&](Backend& b) {
            Operand od(b, d_in), oh(b, d_h);
            b.wavenet_layer_input_backward(od.view(), shift, segments, oh.view(), View{});
            return Outputs{oh.get()};
          },
          [&] {
            Matrix sum = d_h + d_in.bottomRows(s.rows);
            return Outputs{
                scalar::causal_shift_backward(d_in.topRows(s.rows), shift, segments, sum)};
          },
          kExact);
    }
  });
}

TEST_P(FusedOps, ConditionedGate) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int r = s.rows, n = s.cols, hop = 3, frames = n / hop + 2;
    const auto index = frame_index(n, hop);
    const auto weight = frame_weight(n, hop);
    const Matrix z = random_matrix(2 * r, n, seed), f = random_matrix(2 * r, frames, seed + 1);
    check(
        [&](Backend& b) {
          const auto at = b.make_interpolation();
          at->assign(index, weight, frames);
          Operand oz(b, z), of(b, f), gated(b, Matrix::Zero(r, n)), t(b, Matrix::Zero(r, n), 0),
              sg(b, Matrix::Zero(r, n), 0);
          b.conditioned_gate_forward(oz.view(), of.view(), *at, gated.view(), t.view(), sg.view());
          return Outputs{gated.get(), t.get(), sg.get()};
        },
        [&] { return scalar::gate_forward(scalar::interpolate(f, index, weight, z)); }, kFp32Bound);
  });
}

// Frame positions that decrease somewhere: a device takes the adjoint by its scatter plan.
std::vector<std::int32_t> reversed(std::vector<std::int32_t> v) { return {v.rbegin(), v.rend()}; }
std::vector<float> reversed(std::vector<float> v) { return {v.rbegin(), v.rend()}; }

TEST_P(FusedOps, ConditionedGateBackward) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const int r = s.rows, n = s.cols, hop = 3, frames = n / hop + 2;
    const Matrix d = random_matrix(r, n, seed);
    const Matrix t = random_matrix(r, n, seed + 1).array().tanh().matrix();
    const Matrix sg = (1.0f + (-random_matrix(r, n, seed + 2)).array().exp()).inverse().matrix();
    const Matrix d_frames = random_matrix(2 * r, frames, seed + 3);
    for (bool sorted : {true, false}) {
      SCOPED_TRACE(sorted ? "sorted frame positions" : "decreasing frame positions");
      const auto index = sorted ? frame_index(n, hop) : reversed(frame_index(n, hop));
      const auto weight = sorted ? frame_weight(n, hop) : reversed(frame_weight(n, hop));
      check(
          [&](Backend& b) {
            const auto at = b.make_interpolation();
            at->assign(index, weight, frames);
            Operand od(b, d), ot(b, t, 0), os(b, sg, 0), dz(b, Matrix::Zero(2 * r, n)),
                of(b, d_frames);
            b.conditioned_gate_backward(od.view(), ot.view(), os.view(), *at, dz.view(), of.view());
            return Outputs{dz.get(), of.get()};
          },
          [&] {
            const Matrix dz = scalar::gate_backward(d, t, sg);
            return Outputs{dz, scalar::interpolate_backward(dz, index, weight, d_frames)};
          },
          kFp32Bound);
    }
  });
}

// The fused adjoint gives the unfused pair's bits on the same backend, in each format it takes
// (on the CPU the pair is its definition; on a device one kernel replaces two).
TEST_P(FusedOps, ConditionedGateBackwardIsTheUnfusedPairToTheBit) {
  std::vector<Format> formats = {{GemmPrecision::kFp32, Element::kFloat32, "fp32"}};
  if (has_16_bit()) formats.insert(formats.end(), std::begin(kFormats), std::end(kFormats));
  for (const Format& format : formats) {
    SCOPED_TRACE(format.name);
    for_each_shape([&](Shape s, std::uint64_t seed) {
      const int r = s.rows, n = s.cols, hop = 3, frames = n / hop + 2;
      Backend& b = backend();
      // A buffer in the format, holding `value` rounded to it (by copy()), and its contents.
      auto in_format = [&](const Matrix& value) {
        Buffer buffer(b);
        buffer.resize(static_cast<int>(value.rows()), static_cast<int>(value.cols()),
                      format.element);
        Operand source(b, value, 0);
        b.copy(source.view(), buffer.view());
        return buffer;
      };
      auto contents = [&](const Buffer& buffer) -> Matrix {
        if (format.element == Element::kFloat32) return buffer.download();
        const int rows = buffer.rows();
        Operand identity(b, Matrix::Identity(rows, rows), 0),
            out(b, Matrix::Zero(rows, buffer.cols()), 0);
        b.gemm(out.view(), identity.view(), Transpose::kNo, buffer.view(), Transpose::kNo, 1.0f,
               0.0f, format.precision);
        return out.get();
      };
      const Matrix d = random_matrix(r, n, seed);
      const Buffer t = in_format(random_matrix(r, n, seed + 1).array().tanh().matrix());
      const Buffer sg =
          in_format((1.0f + (-random_matrix(r, n, seed + 2)).array().exp()).inverse().matrix());
      const Matrix d_frames = random_matrix(2 * r, frames, seed + 3);
      for (bool sorted : {true, false}) {
        SCOPED_TRACE(sorted ? "sorted frame positions" : "decreasing frame positions");
        const auto at = b.make_interpolation();
        at->assign(sorted ? frame_index(n, hop) : reversed(frame_index(n, hop)),
                   sorted ? frame_weight(n, hop) : reversed(frame_weight(n, hop)), frames);
        Operand od(b, d), fused_frames(b, d_frames), pair_frames(b, d_frames);
        Buffer fused_dz = in_format(Matrix::Zero(2 * r, n)),
               pair_dz = in_format(Matrix::Zero(2 * r, n));
        b.conditioned_gate_backward(od.view(), t.view(), sg.view(), *at, fused_dz.view(),
                                    fused_frames.view());
        b.gate_backward(od.view(), t.view(), sg.view(), pair_dz.view());
        b.add_interpolated_columns_backward(pair_dz.view(), *at, pair_frames.view());
        expect_close({contents(fused_dz), fused_frames.get()},
                     {contents(pair_dz), pair_frames.get()}, kExact);
      }
    });
  }
}

TEST_P(FusedOps, BiasRelu) {
  for_each_shape([&](Shape s, std::uint64_t seed) {
    const Matrix x = random_matrix(s.rows, s.cols, seed), bias = random_matrix(s.rows, 1, seed + 1);
    check(
        [&](Backend& b) {
          Operand ox(b, x), ob(b, bias), oy(b, Matrix::Zero(s.rows, s.cols), 1);
          b.bias_relu_forward(ox.view(), ob.view(), oy.view());
          Operand in_place(b, x);
          b.bias_relu_forward(in_place.view(), ob.view(), in_place.view());
          return Outputs{oy.get(), in_place.get()};
        },
        [&] {
          const Matrix y = scalar::relu(scalar::add_bias(x, bias));
          return Outputs{y, y};
        },
        kExact);
  });
}

// Ops that write a 16-bit view: the CPU's fp32 result, rounded.
TEST_P(FusedOps, WritesRoundedOperands) {
  if (!has_16_bit()) GTEST_SKIP() << "the CPU has no 16-bit operands";
  Backend& cpu = tts::kernels::cpu_backend();
  for (const Format& format : kFormats) {
    SCOPED_TRACE(format.name);
    for_each_shape([&](Shape s, std::uint64_t seed) {
      const int r = s.rows, n = s.cols, segments = n % 4 == 0 ? 4 : 1;
      const Matrix h = random_matrix(r, n, seed), bias = random_matrix(r, 1, seed + 1);
      const Matrix z = random_matrix(2 * r, n, seed + 2), d = random_matrix(r, n, seed + 3);
      Backend& b = backend();
      // The layer's input, stacked in 16 bits.
      Operand oh(b, h), ob(b, bias), out(b, Matrix::Zero(r, n));
      Rounded stacked(b, 2 * r, n, format);
      b.wavenet_layer_input(oh.view(), ob.view(), 3, segments, out.view(), stacked.view());
      Operand ch(cpu, h), cb(cpu, bias), co(cpu, Matrix::Zero(r, n)),
          cs(cpu, Matrix::Zero(2 * r, n));
      cpu.wavenet_layer_input(ch.view(), cb.view(), 3, segments, co.view(), cs.view());
      const Outputs want_input{co.get(), cs.get()};
      expect_close({out.get(), stacked.get()},
                   {want_input[0], rounded(want_input[1], format.element)}, kExact);
      // bias + ReLU and the ReLU's adjoint, in 16 bits.
      Operand x(b, h);
      Rounded y(b, r, n, format), dx(b, r, n, format);
      b.bias_relu_forward(x.view(), ob.view(), y.view());
      const Matrix want_y = rounded(scalar::relu(scalar::add_bias(h, bias)), format.element);
      expect_close({y.get()}, {want_y}, kExact);
      Operand dy(b, d);
      b.relu_backward(dy.view(), y.view(), dx.view());
      expect_close({dx.get()}, {rounded(scalar::relu_backward(d, want_y), format.element)}, kExact);
      // The gate and its adjoint in 16 bits (z, the output and the kept factors): within a
      // rounding of the CPU's given the rounded z (tanh and the sigmoid differ from the CPU's by a
      // few ulp, which can move a value across a rounding boundary).
      const double gate_bound = format.element == Element::kBfloat16 ? 1e-2 : 2e-3;
      const int hop = 3, frames = n / hop + 2;
      const auto index = frame_index(n, hop);
      const auto weight = frame_weight(n, hop);
      const Matrix f = random_matrix(2 * r, frames, seed + 4);
      const auto at = b.make_interpolation();
      at->assign(index, weight, frames);
      Operand of(b, f);
      Rounded rz(b, z, format), gated(b, r, n, format), t(b, r, n, format), sg(b, r, n, format),
          dz(b, 2 * r, n, format);
      b.conditioned_gate_forward(rz.view(), of.view(), *at, gated.view(), t.view(), sg.view());
      const Outputs want_gate =
          scalar::gate_forward(scalar::interpolate(f, index, weight, rounded(z, format.element)));
      expect_close({gated.get(), t.get(), sg.get()},
                   {rounded(want_gate[0], format.element), rounded(want_gate[1], format.element),
                    rounded(want_gate[2], format.element)},
                   gate_bound);
      b.gate_backward(dy.view(), t.view(), sg.view(), dz.view());
      expect_close({dz.get()},
                   {rounded(scalar::gate_backward(d, rounded(want_gate[1], format.element),
                                                  rounded(want_gate[2], format.element)),
                            format.element)},
                   gate_bound);
      // The residual stream's adjoint from a 16-bit d_in, with its 16-bit copy.
      const Matrix d_in = random_matrix(2 * r, n, seed + 5);
      Rounded rd_in(b, d_in, format), d_h_rounded(b, r, n, format);
      Operand odh(b, d);
      b.wavenet_layer_input_backward(rd_in.view(), 2, segments, odh.view(), d_h_rounded.view());
      const Matrix d_in_r = rounded(d_in, format.element);
      Matrix sum = d + d_in_r.bottomRows(r);
      const Matrix want_d_h = scalar::causal_shift_backward(d_in_r.topRows(r), 2, segments, sum);
      expect_close({odh.get(), d_h_rounded.get()}, {want_d_h, rounded(want_d_h, format.element)},
                   kExact);
      // A 16-bit product (beta 0): the fp32 product of the rounded operands, rounded once.
      Rounded ra(b, h, format), product(b, r, r, format);
      b.gemm(product.view(), ra.view(), Transpose::kNo, ra.view(), Transpose::kYes, 1.0f, 0.0f,
             format.precision);
      const Matrix hr = rounded(h, format.element);
      expect_close({product.get()}, {rounded(Matrix(hr * hr.transpose()), format.element)},
                   gate_bound);
      // The loss's gradient, and its loss scale.
      if (r >= 2) {
        const auto targets = random_ids(n, r, seed + 6);
        const auto ids = b.make_indices();
        ids->assign(targets, 0);
        Operand logits(b, h, 0);
        Rounded d_logits(b, r, n, format);
        Matrix want_d;
        const double want_loss = scalar::softmax_cross_entropy(h, targets, &want_d);
        const double loss = b.softmax_cross_entropy(logits.view(), *ids, d_logits.view());
        EXPECT_NEAR(loss, want_loss, 1e-5 * std::abs(want_loss));
        expect_close({d_logits.get()}, {rounded(want_d, format.element)}, gate_bound);
        b.scale(d_logits.view(), 1024.0f);
        expect_close({d_logits.get()}, {Matrix(rounded(want_d, format.element) * 1024.0f)},
                     gate_bound);
      }
    });
  }
}

// Ops that read a 16-bit view: the CPU given the rounded values.
TEST_P(FusedOps, ReadsRoundedOperands) {
  if (!has_16_bit()) GTEST_SKIP() << "the CPU has no 16-bit operands";
  for (const Format& format : kFormats) {
    SCOPED_TRACE(format.name);
    for_each_shape([&](Shape s, std::uint64_t seed) {
      const int r = s.rows, n = s.cols;
      const Matrix a = random_matrix(r, r + 5, seed), x = random_matrix(r + 5, n, seed + 1);
      const Matrix sums = random_matrix(r, 1, seed + 2);
      Backend& b = backend();
      // A GEMM of 16-bit operands as they are, and of a 16-bit slice of a taller matrix.
      Rounded ra(b, a, format), rx(b, x, format);
      Operand c(b, Matrix::Zero(r, n));
      b.gemm(c.view(), ra.view(), Transpose::kNo, rx.view(), Transpose::kNo, 1.0f, 0.0f,
             format.precision);
      const Matrix want =
          scalar::gemm(Matrix::Zero(r, n), rounded(a, format.element), Transpose::kNo,
                       rounded(x, format.element), Transpose::kNo, 1.0f, 0.0f);
      expect_close({c.get()}, {want}, kFp32Bound);
      // Row sums of a 16-bit matrix.
      Operand out(b, sums);
      b.accumulate_row_sums(out.view(), rx.view().middle_rows(0, r));
      expect_close({out.get()}, {scalar::row_sums(sums, rounded(x, format.element).topRows(r))},
                   kFp32Bound);
      // The interpolation's adjoint reading a 16-bit gradient.
      const int hop = 3, frames = n / hop + 2;
      const auto index = frame_index(n, hop);
      const auto weight = frame_weight(n, hop);
      const Matrix d_frames = random_matrix(r, frames, seed + 3);
      const auto at = b.make_interpolation();
      at->assign(index, weight, frames);
      Operand od(b, d_frames);
      b.add_interpolated_columns_backward(rx.view().middle_rows(0, r), *at, od.view());
      const Matrix want_frames = scalar::interpolate_backward(rounded(x, format.element).topRows(r),
                                                              index, weight, d_frames);
      expect_close({od.get()}, {want_frames}, kFp32Bound);
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FusedOps, ::testing::ValuesIn(built_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
