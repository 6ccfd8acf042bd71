// Weights stored in fewer bits for the matrix-vector products of sampling, which stream every
// weight once per sample and so run at the speed of the bytes they read:
//   fp16  IEEE binary16, each weight rounded to nearest (about 3.3 significant digits; weights
//         beyond ±65504 become infinite, and a matrix holding one is refused).
//   int8  one scale per row (its largest magnitude / 127) and each weight rounded to a multiple
//         of it in [−127, 127].
// The product widens the weights to fp32 in registers and sums in fp32 (tts/kernels/cpu_isa.h
// picks the instructions: F16C on x86-64-v3 and AVX-512, software conversion on baseline x86-64,
// the FPU's own on Arm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// How a model's sampling weights are held in memory: as trained (fp32), or compacted.
enum class WeightPrecision { kFp32, kFp16, kInt8 };

// "fp32", "fp16", "int8".
const char* weight_precision_name(WeightPrecision precision);
// Throws std::invalid_argument naming the accepted values.
WeightPrecision parse_weight_precision(const std::string& name);
// Bytes one weight takes (4, 2, 1; int8's row scales aside).
std::size_t weight_precision_bytes(WeightPrecision precision);

// What sampling weights are held in unless told otherwise: kFp16 where the CPU kernels in use
// (cpu_isa.h) widen halves in hardware (x86-64's avx2 and avx512 variants, F16C; every aarch64
// variant), where it samples about 1.5 times as fast as fp32 with audio as close to fp32's as
// another seed's (docs/benchmarks.md); kFp32 elsewhere, where the software conversion of x86-64's
// baseline samples fp16 at a third of fp32's speed.
WeightPrecision default_weight_precision();

// A matrix compacted to fp16 or int8, for y = A·x.
class CompactMatrix {
 public:
  CompactMatrix() = default;
  // Compacts `a` (any outer stride). Throws std::invalid_argument for kFp32 (nothing to compact)
  // and for a weight that is not finite or, in fp16, beyond its range.
  CompactMatrix(ConstMatrixRef a, WeightPrecision precision);

  WeightPrecision precision() const { return precision_; }
  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  // What one product reads: the weights and, for int8, the row scales.
  std::size_t bytes() const;

  // y = A·x (+ y when accumulate), A as stored. Throws std::invalid_argument when the shapes do
  // not agree.
  void gemv(VectorRef y, ConstVectorRef x, bool accumulate = false) const;

  // The weights the product multiplies by, widened to fp32 (tests, error reports).
  Matrix widened() const;

 private:
  WeightPrecision precision_ = WeightPrecision::kFp16;
  Eigen::Index rows_ = 0, cols_ = 0;
  std::vector<std::uint16_t> half_;     // fp16: column-major, leading dimension rows_
  std::vector<std::int8_t> quantised_;  // int8: column-major, leading dimension rows_
  std::vector<float> row_scale_;        // int8
};

}  // namespace tts::kernels
