// TTS_SANITIZER_BUILD is 1 in builds with AddressSanitizer or ThreadSanitizer, whose code runs
// several times slower: tests that time things give them more room, and exhaustive sweeps do
// less. GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; Clang 14 only answers
// __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TTS_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TTS_SANITIZER_BUILD 1
#endif
#endif
#ifndef TTS_SANITIZER_BUILD
#define TTS_SANITIZER_BUILD 0
#endif
