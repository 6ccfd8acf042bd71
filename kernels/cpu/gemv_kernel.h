// Internal: the matrix-vector product of incremental sampling, compiled once per instruction set.
#pragma once

#include <cstddef>

namespace tts::kernels::detail {

// y = A·x (+ y when accumulate) for column-major A (m × n, leading dimension lda).
// GCC builds AVX-512, AVX2 and baseline clones and picks one at load time for the CPU it runs on.
void gemv_column_major(const float* a, std::ptrdiff_t lda, std::ptrdiff_t m, std::ptrdiff_t n,
                       const float* x, float* y, bool accumulate);

// Which clone gemv_column_major dispatches to on this CPU (for reports).
const char* gemv_isa();

}  // namespace tts::kernels::detail
