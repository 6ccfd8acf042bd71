// Internal: run-time ISA dispatch for the hot CPU kernels. The compiler builds a function marked
// TTS_ISA_CLONES for AVX-512 (x86-64-v4), AVX2+FMA (x86-64-v3) and the baseline, and an ifunc
// resolver picks one when the program loads. Clang 14 knows CPU names, not GCC's x86-64 levels,
// so it gets the first CPUs of each level (Skylake-AVX512 and Haswell), whose features are theirs.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TTS_THREAD_SANITIZER 1  // Clang's spelling of GCC's __SANITIZE_THREAD__
#endif
#endif

#if defined(__SANITIZE_THREAD__) || defined(TTS_THREAD_SANITIZER)
// ThreadSanitizer instruments the ifunc resolver, which the loader runs before TSan's runtime is
// up; the TSan build therefore uses the baseline code only.
#define TTS_ISA_CLONES
#elif defined(__clang__)
#define TTS_ISA_CLONES \
  __attribute__((target_clones("arch=skylake-avx512", "arch=haswell", "default")))
#else
#define TTS_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
