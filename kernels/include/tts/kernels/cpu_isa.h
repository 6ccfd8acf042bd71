// The instruction-set variants of the CPU's hot kernels: the GEMV, the gate and the softmax of
// sampling, the acoustic model's layer norm (and the peak-speed measure). Each is compiled once per
// ISA into a named variant; the library picks one at the first kernel call: the one named by
// $TTS_ISA when this CPU runs it, otherwise the best this CPU runs. x86-64 builds have avx512
// (x86-64-v4), avx2 (x86-64-v3: AVX2 + FMA) and baseline; aarch64 builds have sve and baseline
// (NEON). GEMM is OpenBLAS's, which picks its own.
#pragma once

#include <string>
#include <vector>

namespace tts::kernels {

struct CpuIsaVariant {
  std::string name;         // what $TTS_ISA and force_cpu_isa take: "avx512", "avx2", "baseline"
  std::string description;  // the instructions it may use, e.g. "x86-64-v3: AVX2, FMA, BMI2, F16C"
  bool runs_here = false;   // this CPU (and OS) supports them
};

// The variants built into this library, best first; the last, "baseline", runs on every CPU of
// the architecture.
std::vector<CpuIsaVariant> cpu_isa_variants();

// The name of the variant the kernels run (selecting it now if no kernel has run yet).
const char* cpu_isa();

// Why $TTS_ISA was not followed (not a variant of this build, or one this CPU cannot run, in which
// case the best it runs is used); "" when it is unset, "auto" or followed.
std::string cpu_isa_note();

// Makes every later kernel call run variant `name`. Throws std::invalid_argument, listing the
// variants, when `name` is not built or this CPU cannot run it. For tests and benchmarks: switch
// before kernels run on other threads (a call in flight finishes in the old variant, and variants
// round differently, so a run switched midway is no longer reproducible bit for bit).
void force_cpu_isa(const std::string& name);

}  // namespace tts::kernels
