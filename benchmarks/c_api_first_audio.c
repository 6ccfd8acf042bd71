/* Time from tts_synthesize_start to the first chunk of tts_synthesize_next, and the real-time
 * factor, through the C API, on one vocoder thread (docs/benchmarks.md, first audio):
 *   OPENBLAS_NUM_THREADS=1 taskset -c 1 build/benchmarks/c_api_first_audio voices/default 9 [TEXT]
 * Prints one line per run (up to 100) and the medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tts/tts.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char** argv) {
  const char* text = argc > 3 ? argv[3]
                              : "The quick brown fox jumps over the lazy dog. A journey of a "
                                "thousand miles begins with a "
                                "single step. Speech synthesis turns written text into sound, one "
                                "sample at a time. The "
                                "vocoder listens to the mel frames and answers with a waveform. "
                                "Good tools are quiet: they do "
                                "their work and get out of the way.";
  if (argc < 3) {
    fprintf(stderr, "usage: %s VOICE RUNS [TEXT]\n", argv[0]);
    return 2;
  }
  int runs = atoi(argv[2]);
  if (runs < 1) runs = 1;
  if (runs > 100) runs = 100;
  tts_voice* voice;
  tts_stream* stream;
  tts_chunk chunk;
  if (tts_voice_load(argv[1], NULL, &voice) != TTS_OK) {
    fprintf(stderr, "load failed\n");
    return 1;
  }
  tts_stream_create(voice, &stream);
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.threads = 1;
  double firsts[100], cpus[100];
  for (int r = 0; r < runs; ++r) {
    tts_chunk_init(&chunk);
    double c0 = cpu(), t0 = now(), first = -1, cfirst = 0;
    size_t samples = 0;
    tts_synthesize_start(stream, text, &o);
    while (tts_synthesize_next(stream, &chunk) == TTS_OK) {
      if (first < 0) {
        first = now() - t0;
        cfirst = cpu() - c0;
      }
      samples += chunk.count;
    }
    double wall = now() - t0, c = cpu() - c0;
    printf(
        "run %d first_audio %.1f ms (process cpu %.1f ms) wall %.3f s cpu %.3f s audio %.2f s rtf "
        "%.3f\n",
        r, 1e3 * first, 1e3 * cfirst, wall, c, samples / 16000.0, wall / (samples / 16000.0));
    firsts[r] = first;
    cpus[r] = cfirst;
  }
  qsort(firsts, runs, sizeof(double), cmp);
  qsort(cpus, runs, sizeof(double), cmp);
  printf("median first_audio %.1f ms, process cpu to first audio %.1f ms\n", 1e3 * firsts[runs / 2],
         1e3 * cpus[runs / 2]);
  tts_stream_free(stream);
  tts_voice_free(voice);
  return 0;
}
