// The registry of the CPU kernels' ISA variants (isa.h) and the selection among them.
#include "isa.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "compact_gemv_kernel.h"
#include "gate_kernel.h"
#include "gemv_kernel.h"
#include "int8_gemv_kernel.h"
#include "layer_norm_kernel.h"
#include "softmax_kernel.h"
#include "tts/kernels/cpu_isa.h"
#include "tts/kernels/linear_algebra.h"

#if defined(TTS_ISA_X86)
#include <cpuid.h>
#elif defined(TTS_ISA_AARCH64)
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)  // <asm/hwcap.h>
#endif
#endif

namespace tts::kernels {

namespace detail {

float fma_chains_baseline(long iterations, float a, float b);  // peak_flops.cpp
#if defined(TTS_ISA_X86)
float fma_chains_avx2(long iterations, float a, float b);
float fma_chains_avx512(long iterations, float a, float b);
#elif defined(TTS_ISA_AARCH64)
float fma_chains_sve(long iterations, float a, float b);
#endif

std::atomic<const CpuKernels*> g_cpu_kernels{nullptr};

namespace {

bool always() { return true; }

#if defined(TTS_ISA_X86)
// Feature by feature rather than GCC's level names, which Clang 14's builtin lacks. libgcc's and
// compiler-rt's checks include the OS's support for the AVX and AVX-512 registers (XCR0).
// F16C (the fp16 GEMV's widening) from CPUID itself: Clang 14's builtin does not know it.
bool has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}
bool has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && has_f16c();
}
bool has_avx512() {
  return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512cd");
}
#elif defined(TTS_ISA_AARCH64)
bool has_sve() { return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0; }
#endif

struct Variant {
  const char* name;
  const char* description;
  bool (*runs_here)();
  CpuKernels kernels;
};

// Best first; the baseline last.
const Variant kVariants[] = {
#if defined(TTS_ISA_X86)
    {"avx512",
     "x86-64-v4: AVX-512 F/BW/DQ/VL/CD",
     has_avx512,
     // The int8 products run AVX2's instructions (int8_gemv_kernel.h says why).
     {gemv_column_major_avx512, gated_tanh_sigmoid_avx512, fma_chains_avx512, softmax_sample_avx512,
      layer_norm_column_avx512, gemv_f16_avx512, quantise_i8_avx2, gemv_i8_avx2}},
    {"avx2",
     "x86-64-v3: AVX2, FMA, BMI2, F16C",
     has_avx2,
     {gemv_column_major_avx2, gated_tanh_sigmoid_avx2, fma_chains_avx2, softmax_sample_avx2,
      layer_norm_column_avx2, gemv_f16_avx2, quantise_i8_avx2, gemv_i8_avx2}},
    {"baseline",
     "x86-64: SSE2",
     always,
     {gemv_column_major_baseline, gated_tanh_sigmoid_baseline, fma_chains_baseline,
      softmax_sample_baseline, layer_norm_column_baseline, gemv_f16_baseline, quantise_i8_baseline,
      gemv_i8_baseline}},
#elif defined(TTS_ISA_AARCH64)
    {"sve",
     "Armv8.2-A with SVE",
     has_sve,
     {gemv_column_major_sve, gated_tanh_sigmoid_sve, fma_chains_sve, softmax_sample_sve,
      layer_norm_column_sve, gemv_f16_sve, quantise_i8_sve, gemv_i8_sve}},
    {"baseline",
     "Armv8-A: NEON",
     always,
     {gemv_column_major_baseline, gated_tanh_sigmoid_baseline, fma_chains_baseline,
      softmax_sample_baseline, layer_norm_column_baseline, gemv_f16_baseline, quantise_i8_baseline,
      gemv_i8_baseline}},
#else
    {"baseline",
     "the compiler's default for this architecture",
     always,
     {gemv_column_major_baseline, gated_tanh_sigmoid_baseline, fma_chains_baseline,
      softmax_sample_baseline, layer_norm_column_baseline, gemv_f16_baseline, quantise_i8_baseline,
      gemv_i8_baseline}},
#endif
};

const Variant* find(const std::string& name) {
  for (const Variant& v : kVariants)
    if (name == v.name) return &v;
  return nullptr;
}

std::string names() {
  std::string out;
  for (const Variant& v : kVariants) {
    if (!out.empty()) out += ", ";
    out += v.name;
    if (!v.runs_here()) out += " (not on this CPU)";
  }
  return out;
}

std::once_flag g_selected;
std::string g_note;  // written once, under g_selected

void select_once() {
  const Variant* best = nullptr;
  for (const Variant& v : kVariants)
    if (v.runs_here()) {
      best = &v;
      break;
    }
  const Variant* chosen = best;
  const char* wanted = std::getenv("TTS_ISA");
  if (wanted && *wanted && std::strcmp(wanted, "auto") != 0) {
    const Variant* v = find(wanted);
    if (!v)
      g_note = std::string("TTS_ISA=") + wanted + " is not a variant of this build (" + names() +
               "); using " + best->name;
    else if (!v->runs_here())
      g_note = std::string("TTS_ISA=") + wanted + ": this CPU cannot run it; using " + best->name;
    else
      chosen = v;
  }
  const CpuKernels* expected = nullptr;  // force_cpu_isa may have run first: it wins
  g_cpu_kernels.compare_exchange_strong(expected, &chosen->kernels, std::memory_order_acq_rel);
}

const Variant& current() {
  const CpuKernels* k = &cpu_kernels();
  for (const Variant& v : kVariants)
    if (&v.kernels == k) return v;
  return kVariants[0];  // unreachable: the pointer only ever holds a registry entry
}

}  // namespace

const CpuKernels* select_cpu_kernels() {
  std::call_once(g_selected, select_once);
  return g_cpu_kernels.load(std::memory_order_acquire);
}

}  // namespace detail

std::vector<CpuIsaVariant> cpu_isa_variants() {
  std::vector<CpuIsaVariant> out;
  for (const detail::Variant& v : detail::kVariants)
    out.push_back({v.name, v.description, v.runs_here()});
  return out;
}

const char* cpu_isa() { return detail::current().name; }

std::string cpu_isa_note() {
  std::call_once(detail::g_selected, detail::select_once);
  return detail::g_note;
}

void force_cpu_isa(const std::string& name) {
  const detail::Variant* v = detail::find(name);
  if (!v)
    throw std::invalid_argument("CPU ISA '" + name + "' is not a variant of this build (" +
                                detail::names() + ")");
  if (!v->runs_here())
    throw std::invalid_argument("CPU ISA '" + name + "': this CPU cannot run it (" +
                                detail::names() + ")");
  std::call_once(detail::g_selected, detail::select_once);  // so no later selection undoes this
  detail::g_cpu_kernels.store(&v->kernels, std::memory_order_release);
}

const char* cpu_kernel_isa() {
  // One "name (description)" per registry entry, made once, so the pointer stays valid.
  static const std::vector<std::string> labels = [] {
    std::vector<std::string> out;
    for (const detail::Variant& v : detail::kVariants)
      out.push_back(std::string(v.name) + " (" + v.description + ")");
    return out;
  }();
  return labels[&detail::current() - detail::kVariants].c_str();
}

}  // namespace tts::kernels
