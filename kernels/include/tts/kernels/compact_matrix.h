// Weights stored in fewer bits for the matrix-vector products of sampling, which stream every
// weight once per sample:
//   fp16  IEEE binary16, each weight rounded to nearest (about 3.3 significant digits; weights
//         beyond ±65504 become infinite, and a matrix holding one is refused). The product widens
//         the weights to fp32 in registers and sums in fp32 (F16C on x86-64-v3 and AVX-512,
//         software conversion on baseline x86-64, the FPU's own on Arm).
//   int8  one scale per row (its largest magnitude / 127) and each weight rounded to a multiple
//         of it in [−127, 127]. The product is in 8-bit integers: each input vector is rounded to
//         7 bits with a scale of its own (its largest magnitude / 63), the products are summed
//         exactly in int32 and only the sum is scaled back (AVX2's byte multiply-adds where the
//         CPU has them), so it reads a quarter of fp32's bytes and runs a quarter of its
//         instructions per weight.
// tts/kernels/cpu_isa.h picks the instructions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

namespace detail {
struct Int8Product;  // kernels/cpu/isa.h
}

// How a model's sampling weights are held in memory: as trained (fp32), or compacted.
enum class WeightPrecision { kFp32, kFp16, kInt8 };

// "fp32", "fp16", "int8".
const char* weight_precision_name(WeightPrecision precision);
// Throws std::invalid_argument naming the accepted values.
WeightPrecision parse_weight_precision(const std::string& name);
// Bytes one weight takes (4, 2, 1; int8's row scales aside).
std::size_t weight_precision_bytes(WeightPrecision precision);

// What sampling weights are held in unless told otherwise, by measurement (docs/benchmarks.md):
//   x86-64 avx2      kInt8: the bundled voice samples about 1.6 times as fast as with fp16, with
//                    audio about as close to fp32's as fp16's is, under half as far as another
//                    seed's.
//   x86-64 avx512    kFp16 until int8 is measured on such a CPU (its int8 products run the AVX2
//                    instructions; its fp16 products widen 16 halves a register).
//   x86-64 baseline  kFp32: fp16 is converted in software there, and int8 is summed by scalar
//                    code, both slower than fp32.
//   aarch64          kFp16 (the FPU widens halves; the int8 products are scalar there).
WeightPrecision default_weight_precision();

// A vector rounded for the int8 products: each element to a multiple of one scale (the vector's
// largest magnitude / 63) in [−63, 63], to nearest, ties to even. Rounded once, it serves every
// product that takes the vector. A vector holding a NaN or an infinity rounds to zeros with a NaN
// scale, so its products are NaN.
class QuantisedVector {
 public:
  QuantisedVector() = default;
  explicit QuantisedVector(ConstVectorRef x) { assign(x); }
  void assign(ConstVectorRef x);

  Eigen::Index size() const { return size_; }
  float scale() const { return scale_; }
  // size() elements, then zeros to a multiple of 4.
  const std::int8_t* data() const { return q_.data(); }
  // The values the products multiply by: the elements times the scale.
  Vector dequantised() const;

 private:
  std::vector<std::int8_t> q_;
  float scale_ = 0.0f;
  Eigen::Index size_ = 0;
};

// A matrix compacted to fp16 or int8, for y = A·x.
class CompactMatrix {
 public:
  CompactMatrix() = default;
  // Compacts `a` (any outer stride). Throws std::invalid_argument for kFp32 (nothing to compact),
  // for a weight that is not finite or, in fp16, beyond its range, and for an int8 matrix of more
  // than 131,072 columns (where int32 sums could overflow).
  CompactMatrix(ConstMatrixRef a, WeightPrecision precision);

  WeightPrecision precision() const { return precision_; }
  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  // What one product reads: the weights (int8's padded to tiles of 8 rows × 4 columns) and, for
  // int8, the row scales and the row sums (padded to whole tiles).
  std::size_t bytes() const;

  // y = A·x (+ y when accumulate), A as stored (and, for int8, x rounded as above). Throws
  // std::invalid_argument when the shapes do not agree.
  void gemv(VectorRef y, ConstVectorRef x, bool accumulate = false) const;
  // y = A·x (+ y when accumulate) for an int8 matrix and x rounded already. Throws
  // std::invalid_argument for an fp16 matrix and when the shapes do not agree.
  void gemv(VectorRef y, const QuantisedVector& x, bool accumulate = false) const;
  // y = A·x + B·u for int8 matrices of as many rows, in one pass: the same as a.gemv(y, x) then
  // b.gemv(y, u, true), bit for bit. Throws std::invalid_argument as gemv does, and when the rows
  // differ.
  static void gemv_sum(VectorRef y, const CompactMatrix& a, const QuantisedVector& x,
                       const CompactMatrix& b, const QuantisedVector& u);

  // The weights the product multiplies by, widened to fp32 (tests, error reports).
  Matrix widened() const;

 private:
  // This int8 matrix times q (rounded with scale s), as the int8 GEMV takes it.
  detail::Int8Product int8_product(const std::int8_t* q, float s) const;

  WeightPrecision precision_ = WeightPrecision::kFp16;
  Eigen::Index rows_ = 0, cols_ = 0;
  std::vector<std::uint16_t> half_;     // fp16: column-major, leading dimension rows_
  std::vector<std::int8_t> quantised_;  // int8: tiles (kernels/cpu/int8_gemv_kernel.h)
  std::vector<float> row_scale_;        // int8
  std::vector<std::int32_t> row_sum_;   // int8: each row's weights summed, padded to whole tiles
};

}  // namespace tts::kernels
