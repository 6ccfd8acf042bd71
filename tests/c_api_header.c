/* Compiled as C99 with -pedantic-errors: proves that tts.h is a C header. The C++ contract test
 * calls these functions. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tts/tts.h"

struct tally {
  size_t samples;
  int chunks;
  int stop_after; /* 0: never stop */
};

static int on_chunk(const tts_chunk* chunk, void* user_data) {
  struct tally* t = (struct tally*)user_data;
  t->samples += chunk->count;
  t->chunks += 1;
  return t->stop_after > 0 && t->chunks >= t->stop_after;
}

/* SSML marks from C, pulled: writes "name@stream_sample\n" for each into `out` (`size` bytes) and
 * returns how many there were, or a negative status (TTS_ERR_INTERNAL when a mark's sample is not
 * within its chunk, or its stream_sample disagrees with the chunks' counts). */
long c_marks(const char* voice_path, const char* ssml, char* out, size_t size) {
  tts_voice* voice = NULL;
  tts_stream* stream = NULL;
  tts_synthesis_options options;
  tts_chunk chunk;
  uint64_t start = 0;
  size_t used = 0, i;
  long marks = 0;
  int rc = tts_voice_load(voice_path, NULL, &voice);
  if (rc != TTS_OK) return rc;
  rc = tts_stream_create(voice, &stream);
  if (rc == TTS_OK) {
    tts_default_synthesis_options(&options);
    options.rate = 6.0f;
    options.ssml = 1;
    options.chunk_samples = 300;
    rc = tts_synthesize_start(stream, ssml, &options);
  }
  if (size > 0) out[0] = '\0';
  tts_chunk_init(&chunk);
  while (rc == TTS_OK && (rc = tts_synthesize_next(stream, &chunk)) == TTS_OK) {
    for (i = 0; i < chunk.mark_count; ++i) {
      const tts_mark* m = &chunk.marks[i];
      const size_t n = strlen(m->name);
      char at[32];
      int digits;
      if (m->sample > chunk.count || (m->sample == chunk.count && !chunk.is_last) ||
          m->stream_sample != start + m->sample)
        marks = TTS_ERR_INTERNAL;
      digits = sprintf(at, "@%lu\n", (unsigned long)m->stream_sample);
      if (marks >= 0 && used + n + (size_t)digits + 1 <= size) {
        memcpy(out + used, m->name, n);
        memcpy(out + used + n, at, (size_t)digits + 1);
        used += n + (size_t)digits;
      }
      if (marks >= 0) ++marks;
    }
    start += chunk.count;
  }
  tts_stream_free(stream);
  tts_voice_free(voice);
  if (rc != TTS_DONE) return rc;
  return marks;
}

/* Pull form: total samples of `text`, or a negative status. */
long c_pull_samples(const char* voice_path, const char* text, unsigned long long seed) {
  tts_voice* voice = NULL;
  tts_stream* stream = NULL;
  tts_synthesis_options options;
  tts_chunk chunk;
  long total = 0;
  int rc = tts_voice_load(voice_path, NULL, &voice);
  if (rc != TTS_OK) return rc;
  rc = tts_stream_create(voice, &stream);
  if (rc != TTS_OK) {
    tts_voice_free(voice);
    return rc;
  }
  tts_default_synthesis_options(&options);
  options.seed = (uint64_t)seed;
  options.rate = 6.0f;
  rc = tts_synthesize_start(stream, text, &options);
  tts_chunk_init(&chunk);
  while (rc == TTS_OK && (rc = tts_synthesize_next(stream, &chunk)) == TTS_OK) {
    if (chunk.sample_rate != 16000 || chunk.phonemes == NULL) rc = TTS_ERR_INTERNAL;
    total += (long)chunk.count;
  }
  tts_stream_free(stream);
  tts_voice_free(voice);
  return rc == TTS_DONE ? total : rc;
}

/* Callback form, stopping after `stop_after` chunks (0: never); returns the status and the
 * chunks seen through *chunks. */
int c_callback(const char* voice_path, const char* text, int stop_after, int* chunks) {
  tts_voice* voice = NULL;
  tts_stream* stream = NULL;
  struct tally t;
  int rc = tts_voice_load(voice_path, NULL, &voice);
  memset(&t, 0, sizeof t);
  t.stop_after = stop_after;
  if (rc != TTS_OK) return rc;
  rc = tts_stream_create(voice, &stream);
  if (rc == TTS_OK) {
    tts_synthesis_options options;
    tts_default_synthesis_options(&options);
    options.rate = 6.0f;
    rc = tts_synthesize(stream, text, &options, on_chunk, &t);
  }
  tts_stream_free(stream);
  tts_voice_free(voice);
  *chunks = t.chunks;
  return rc;
}

/* The voice list from C: writes the search path's folders, '\n'-terminated each, into `out`
 * (`size` bytes) and returns the number of voices listed, or a negative status. */
long c_list_voices(char* out, size_t size) {
  tts_voice_list* list = NULL;
  tts_voice_info info;
  size_t i, used = 0;
  long voices;
  int rc = tts_voice_list_create(&list);
  if (rc != TTS_OK) return rc;
  if (size > 0) out[0] = '\0';
  for (i = 0; i < tts_voice_list_search_path_count(list); ++i) {
    const char* folder = tts_voice_list_search_path(list, i);
    const size_t n = strlen(folder);
    if (used + n + 2 <= size) {
      memcpy(out + used, folder, n);
      out[used + n] = '\n';
      used += n + 1;
      out[used] = '\0';
    }
  }
  voices = (long)tts_voice_list_count(list);
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  for (i = 0; i < (size_t)voices; ++i)
    if (tts_voice_list_get(list, i, &info) == TTS_ERR_INVALID_ARGUMENT || info.name == NULL)
      voices = TTS_ERR_INTERNAL;
  tts_voice_list_free(list);
  return voices;
}
