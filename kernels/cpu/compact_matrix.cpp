#include "tts/kernels/compact_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "compact_gemv_kernel.h"
#include "int8_gemv_kernel.h"
#include "tts/kernels/cpu_isa.h"

namespace tts::kernels {

const char* weight_precision_name(WeightPrecision precision) {
  switch (precision) {
    case WeightPrecision::kFp32:
      return "fp32";
    case WeightPrecision::kFp16:
      return "fp16";
    case WeightPrecision::kInt8:
      return "int8";
  }
  return "fp32";
}

WeightPrecision parse_weight_precision(const std::string& name) {
  for (const WeightPrecision p :
       {WeightPrecision::kFp32, WeightPrecision::kFp16, WeightPrecision::kInt8})
    if (name == weight_precision_name(p)) return p;
  throw std::invalid_argument("weight precision '" + name + "': expected fp32, fp16 or int8");
}

std::size_t weight_precision_bytes(WeightPrecision precision) {
  switch (precision) {
    case WeightPrecision::kFp32:
      return 4;
    case WeightPrecision::kFp16:
      return 2;
    case WeightPrecision::kInt8:
      return 1;
  }
  return 4;
}

WeightPrecision default_weight_precision() {
#if defined(__aarch64__)
  return WeightPrecision::kFp16;
#elif defined(__x86_64__)
  const char* isa = cpu_isa();
  if (std::strcmp(isa, "avx2") == 0) return WeightPrecision::kInt8;
  return std::strcmp(isa, "baseline") == 0 ? WeightPrecision::kFp32 : WeightPrecision::kFp16;
#else
  return WeightPrecision::kFp32;
#endif
}

CompactMatrix::CompactMatrix(ConstMatrixRef a, WeightPrecision precision)
    : precision_(precision), rows_(a.rows()), cols_(a.cols()) {
  if (precision == WeightPrecision::kFp32)
    throw std::invalid_argument("CompactMatrix: fp32 weights are used as they are");
  auto refuse = [&](Eigen::Index i, Eigen::Index j, const char* why) {
    throw std::invalid_argument("CompactMatrix: weight (" + std::to_string(i) + ", " +
                                std::to_string(j) + ") of a " + std::to_string(rows_) + " x " +
                                std::to_string(cols_) + " matrix is " + std::to_string(a(i, j)) +
                                ", " + why);
  };
  const auto size = static_cast<std::size_t>(rows_ * cols_);
  if (precision == WeightPrecision::kFp16) {
    half_.resize(size);
    for (Eigen::Index j = 0; j < cols_; ++j)
      for (Eigen::Index i = 0; i < rows_; ++i) {
        const float v = a(i, j);
        if (!std::isfinite(v)) refuse(i, j, "not a finite number");
        const std::uint16_t h = detail::float_to_half(v);
        if ((h & 0x7c00u) == 0x7c00u) refuse(i, j, "beyond fp16's range (±65504)");
        half_[static_cast<std::size_t>(j * rows_ + i)] = h;
      }
    return;
  }
  if (cols_ > detail::kInt8MaxCols)
    throw std::invalid_argument("CompactMatrix: int8 products take at most " +
                                std::to_string(detail::kInt8MaxCols) + " columns, not " +
                                std::to_string(cols_));
  quantised_.assign(detail::int8_tiles_bytes(rows_, cols_), 0);
  row_scale_.assign(static_cast<std::size_t>(rows_), 0.0f);
  // Padded to whole blocks of rows: the AVX2 products read a block's sums at once.
  row_sum_.assign(static_cast<std::size_t>((rows_ + detail::kInt8TileRows - 1) /
                                           detail::kInt8TileRows * detail::kInt8TileRows),
                  0);
  for (Eigen::Index i = 0; i < rows_; ++i) {
    float largest = 0.0f;
    for (Eigen::Index j = 0; j < cols_; ++j) {
      if (!std::isfinite(a(i, j))) refuse(i, j, "not a finite number");
      largest = std::max(largest, std::abs(a(i, j)));
    }
    const float scale = largest / 127.0f;
    row_scale_[static_cast<std::size_t>(i)] = scale;
    for (Eigen::Index j = 0; j < cols_; ++j) {
      const float q = scale > 0.0f ? std::nearbyint(a(i, j) / scale) : 0.0f;
      const auto w = static_cast<std::int8_t>(std::clamp(q, -127.0f, 127.0f));
      quantised_[detail::int8_tile_index(i, j, cols_)] = w;
      row_sum_[static_cast<std::size_t>(i)] += w;
    }
  }
}

std::size_t CompactMatrix::bytes() const {
  return half_.size() * sizeof(std::uint16_t) + quantised_.size() +
         row_scale_.size() * sizeof(float) + row_sum_.size() * sizeof(std::int32_t);
}

void QuantisedVector::assign(ConstVectorRef x) {
  size_ = x.size();
  q_.resize(static_cast<std::size_t>(detail::int8_input_bytes(size_)));
  scale_ = detail::quantise_i8(x.data(), size_, q_.data());
}

Vector QuantisedVector::dequantised() const {
  Vector v(size_);
  for (Eigen::Index j = 0; j < size_; ++j)
    v(j) = static_cast<float>(q_[static_cast<std::size_t>(j)]) * scale_;
  return v;
}

namespace {
[[noreturn]] __attribute__((noinline, cold)) void refuse_shapes(Eigen::Index rows,
                                                                Eigen::Index cols, Eigen::Index x,
                                                                Eigen::Index y) {
  throw std::invalid_argument("CompactMatrix::gemv: a " + std::to_string(rows) + " x " +
                              std::to_string(cols) + " matrix times " + std::to_string(x) +
                              " into " + std::to_string(y));
}

inline void check_shapes(Eigen::Index rows, Eigen::Index cols, Eigen::Index x, Eigen::Index y) {
  if (x != cols || y != rows) refuse_shapes(rows, cols, x, y);
}
}  // namespace

detail::Int8Product CompactMatrix::int8_product(const std::int8_t* q, float s) const {
  return {quantised_.data(), row_scale_.data(), row_sum_.data(), cols_, q, s};
}

void CompactMatrix::gemv(VectorRef y, ConstVectorRef x, bool accumulate) const {
  check_shapes(rows_, cols_, x.size(), y.size());
  if (precision_ == WeightPrecision::kFp16) {
    detail::gemv_f16_column_major(half_.data(), rows_, rows_, cols_, x.data(), y.data(),
                                  accumulate);
    return;
  }
  // The rounded input on the stack at the sampler's sizes.
  constexpr std::ptrdiff_t kStackBytes = 1024;
  alignas(32) std::int8_t stack[kStackBytes];
  std::vector<std::int8_t> heap;
  std::int8_t* q = stack;
  if (detail::int8_input_bytes(cols_) > kStackBytes) {
    heap.resize(static_cast<std::size_t>(detail::int8_input_bytes(cols_)));
    q = heap.data();
  }
  const detail::Int8Product product = int8_product(q, detail::quantise_i8(x.data(), cols_, q));
  detail::gemv_i8_tiles(&product, 1, rows_, y.data(), accumulate);
}

void CompactMatrix::gemv(VectorRef y, const QuantisedVector& x, bool accumulate) const {
  if (precision_ != WeightPrecision::kInt8)
    throw std::invalid_argument("CompactMatrix::gemv: a rounded vector times an fp16 matrix");
  check_shapes(rows_, cols_, x.size(), y.size());
  const detail::Int8Product product = int8_product(x.data(), x.scale());
  detail::gemv_i8_tiles(&product, 1, rows_, y.data(), accumulate);
}

void CompactMatrix::gemv_sum(VectorRef y, const CompactMatrix& a, const QuantisedVector& x,
                             const CompactMatrix& b, const QuantisedVector& u) {
  if (a.precision_ != WeightPrecision::kInt8 || b.precision_ != WeightPrecision::kInt8)
    throw std::invalid_argument("CompactMatrix::gemv_sum: rounded vectors times an fp16 matrix");
  check_shapes(a.rows_, a.cols_, x.size(), y.size());
  check_shapes(b.rows_, b.cols_, u.size(), y.size());
  const detail::Int8Product products[] = {a.int8_product(x.data(), x.scale()),
                                          b.int8_product(u.data(), u.scale())};
  detail::gemv_i8_tiles(products, 2, a.rows_, y.data(), /*accumulate=*/false);
}

Matrix CompactMatrix::widened() const {
  Matrix out(rows_, cols_);
  for (Eigen::Index j = 0; j < cols_; ++j)
    for (Eigen::Index i = 0; i < rows_; ++i) {
      out(i, j) = precision_ == WeightPrecision::kFp16
                      ? detail::half_to_float(half_[static_cast<std::size_t>(j * rows_ + i)])
                      : static_cast<float>(quantised_[detail::int8_tile_index(i, j, cols_)]) *
                            row_scale_[static_cast<std::size_t>(i)];
    }
  return out;
}

}  // namespace tts::kernels
