#include "tts/kernels/linear_algebra.h"

#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gemv_kernel.h"

// GEMM goes to OpenBLAS: it selects AVX-512/AVX2/SSE kernels at run time for the CPU it runs
// on, which a build of Eigen for the baseline x86-64 ISA cannot. Eigen still does the element-wise
// work elsewhere. All our matrices are column-major with unit inner stride.
namespace tts::kernels {

namespace {
int blas_int(Eigen::Index v) { return static_cast<int>(v); }

extern "C" char* openblas_get_corename(void);

// OpenBLAS built with DYNAMIC_ARCH picks its kernels once, when it is loaded; for a CPU model it
// does not know it takes the baseline "Prescott" (SSE3) kernels even where the CPU has AVX-512
// (0.3.21 on Intel family 6 model 207: GEMM at 17 instead of 93 GFLOP/s). It reads
// OPENBLAS_CORETYPE only at that point, so this sets it and runs OpenBLAS's selection again
// (gotoblas_dynamic_quit/init, looked up at run time: only DYNAMIC_ARCH builds have them). It runs
// while tts_kernels is loaded, after OpenBLAS (a dependency) and before any GEMM of ours.
const char* g_switched_from = "";

#if defined(__x86_64__)
bool baseline_kernels(const char* name) {
  for (const char* n : {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Sandybridge",
                        "Katmai", "Coppermine", "Northwood", "Banias", "Atom"})
    if (std::strcmp(name, n) == 0) return true;
  return false;
}
#endif

struct SelectGemmKernels {
  SelectGemmKernels() {
#if defined(__x86_64__)  // elsewhere OpenBLAS's own choice stands (the cores named are x86's)
    if (std::getenv("OPENBLAS_CORETYPE")) return;  // the user's choice
    const char* name = openblas_get_corename();
    if (!name || !baseline_kernels(name)) return;
    const char* better = nullptr;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
      better = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      better = "Haswell";
    if (!better) return;
    using Fn = void (*)(void);
    auto quit = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
    auto init = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
    if (!quit || !init) return;
    static std::string was;
    was = name;
    setenv("OPENBLAS_CORETYPE", better, 0);
    quit();
    init();
    unsetenv("OPENBLAS_CORETYPE");  // child processes make their own choice
    g_switched_from = was.c_str();
#endif
  }
};
const SelectGemmKernels g_select_gemm_kernels;

}  // namespace

GemmSizes gemm_sizes(ConstMatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
                     Transpose transpose_b, const char* who) {
  const bool ta = transpose_a == Transpose::kYes;
  const bool tb = transpose_b == Transpose::kYes;
  GemmSizes sizes;
  sizes.m = ta ? a.cols() : a.rows();
  sizes.k = ta ? a.rows() : a.cols();
  sizes.n = tb ? b.rows() : b.cols();
  const Eigen::Index kb = tb ? b.cols() : b.rows();
  if (sizes.k != kb || c.rows() != sizes.m || c.cols() != sizes.n)
    throw std::invalid_argument(std::string(who) + ": shapes do not agree");
  return sizes;
}

void gemm(MatrixRef c, ConstMatrixRef a, Transpose transpose_a, ConstMatrixRef b,
          Transpose transpose_b, float alpha, float beta) {
  const bool ta = transpose_a == Transpose::kYes;
  const bool tb = transpose_b == Transpose::kYes;
  const auto [m, n, k] = gemm_sizes(c, a, transpose_a, b, transpose_b, "gemm");
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0.0f)
      c.setZero();
    else
      c *= beta;
    return;
  }
  cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              blas_int(m), blas_int(n), blas_int(k), alpha, a.data(), blas_int(a.outerStride()),
              b.data(), blas_int(b.outerStride()), beta, c.data(), blas_int(c.outerStride()));
}

void gemv(VectorRef y, ConstMatrixRef a, ConstVectorRef x, bool accumulate) {
  if (a.cols() != x.size() || a.rows() != y.size())
    throw std::invalid_argument("gemv: shapes do not agree");
  // Our own kernel rather than BLAS: at these sizes (≤ 256 × 1280) a library call's overhead and
  // threading checks cost more than the product itself.
  detail::gemv_column_major(a.data(), a.outerStride(), a.rows(), a.cols(), x.data(), y.data(),
                            accumulate);
}

const char* gemm_kernels(const char** switched_from) {
  if (switched_from) *switched_from = g_switched_from;
  const char* name = openblas_get_corename();
  return name ? name : "";
}

void set_gemm_threads(int threads) { openblas_set_num_threads(threads < 1 ? 1 : threads); }

void add_bias(MatrixRef x, ConstVectorRef bias) { x.colwise() += bias; }

void accumulate_row_sums(VectorRef out, ConstMatrixRef x) { out += x.rowwise().sum(); }

}  // namespace tts::kernels
