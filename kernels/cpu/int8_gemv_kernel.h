// Internal: the matrix-vector product of sampling in 8-bit integers (tts/kernels/compact_matrix.h,
// WeightPrecision::kInt8), compiled once per instruction set like the fp32 GEMV (gemv_kernel.h).
//
// The weights are int8 in [−127, 127] with one scale per row. The input vector is rounded once
// (quantise_i8), and then used by every product that takes it, to kInputSteps steps either side of
// zero: its largest magnitude / 63 is its scale, each element is rounded to nearest, ties to even.
// The products are summed exactly in int32 and only the sum is scaled back to fp32.
//
// Seven bits for the input let AVX2 multiply without a sign fix: the input plus kInputOffset is in
// [1, 127], unsigned, so one VPMADDUBSW multiplies 32 of its bytes by 32 weights and adds the pairs
// into int16 (at most 2·127·127 = 32258, no saturation), and the offset comes back out as
// kInputOffset times each row's weight sum. (An 8-bit input needs VPSIGNB on every tile to move
// its signs onto the weights: 15% slower. Measured on the bundled voice, 7 bits move its audio no
// further from fp32's: docs/benchmarks.md.)
//
// The weights are packed in tiles of 8 rows × 4 columns (32 bytes, row by row, each row's 4
// columns together: the operand layout of VPMADDUBSW followed by VPMADDWD, and of VPDPBUSD),
// tiles of one 8-row block first by column group; rows are padded to a multiple of 8 and columns
// to a multiple of 4 with zeros. Every variant computes the same integer sums, so they differ only
// where the final y + sum·scale is fused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa.h"

namespace tts::kernels::detail {

constexpr std::ptrdiff_t kInt8TileRows = 8;
constexpr std::ptrdiff_t kInt8TileCols = 4;
// The input's steps either side of zero, and what the AVX2 products add to make it unsigned.
constexpr int kInputSteps = 63;
constexpr int kInputOffset = 64;
// The sums are exact in int32 while n·127·127 < 2^31.
constexpr std::ptrdiff_t kInt8MaxCols = 131072;
// Bytes quantise_i8 writes for n elements: n rounded up to a whole column group.
constexpr std::ptrdiff_t int8_input_bytes(std::ptrdiff_t n) {
  return (n + kInt8TileCols - 1) / kInt8TileCols * kInt8TileCols;
}

// Bytes of the packed weights of an m × n matrix.
std::size_t int8_tiles_bytes(std::ptrdiff_t m, std::ptrdiff_t n);
// Where weight (i, j) lives in the packed tiles of a matrix with n columns.
std::size_t int8_tile_index(std::ptrdiff_t i, std::ptrdiff_t j, std::ptrdiff_t n);

// q(x): x rounded to multiples of s(x) = max|x| / 63, as int8 in [−63, 63] (to nearest, ties
// to even), written to q and padded with zeros to a whole column group. Returns s(x): 0 for a zero
// vector, NaN when x holds a NaN or an infinity (q is then zero, and a product by it NaN).
inline float quantise_i8(const float* x, std::ptrdiff_t n, std::int8_t* q) {
  return cpu_kernels().quantise_i8(x, n, q);
}

// y = Σ_k row_scale_k ⊙ (Q_k·q_k)·s_k (+ y when accumulate) over `count` products of m rows (each
// Q packed as above with its rows' sums, padded with zeros to whole blocks; each q, s from
// quantise_i8). Block by block, each product's scaled sums are added to y in turn, so two products
// in one call (a dilated convolution's two halves) equal two calls, the second accumulating.
inline void gemv_i8_tiles(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                          bool accumulate) {
  cpu_kernels().gemv_i8(products, count, m, y, accumulate);
}

// The variants; isa.cpp's registry names them. The baselines are the scalar references. The
// avx512 variant runs the AVX2 ones: the same instructions on 512-bit registers (AVX-512 BW) need
// tiles of 16 rows and a CPU to measure them on, and the byte dot product VPDPBUSD is AVX-512
// VNNI's, beyond x86-64-v4.
float quantise_i8_baseline(const float* x, std::ptrdiff_t n, std::int8_t* q);
void gemv_i8_baseline(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                      bool accumulate);
#if defined(TTS_ISA_X86)
float quantise_i8_avx2(const float* x, std::ptrdiff_t n, std::int8_t* q);
void gemv_i8_avx2(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                  bool accumulate);
#elif defined(TTS_ISA_AARCH64)
float quantise_i8_sve(const float* x, std::ptrdiff_t n, std::int8_t* q);
void gemv_i8_sve(const Int8Product* products, int count, std::ptrdiff_t m, float* y,
                 bool accumulate);
#endif

}  // namespace tts::kernels::detail
