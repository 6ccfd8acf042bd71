// Internal: run-time ISA dispatch for the hot CPU kernels. GCC compiles a function marked
// TTS_ISA_CLONES for AVX-512 (x86-64-v4), AVX2+FMA (x86-64-v3) and the baseline, and an ifunc
// resolver picks one when the program loads.
#pragma once

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer instruments the ifunc resolver, which the loader runs before TSan's runtime is
// up; the TSan build therefore uses the baseline code only.
#define TTS_ISA_CLONES
#else
#define TTS_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
