/* speak: a small program that embeds libtts through its C API.
 *
 *   speak VOICE "Text to say." OUT.wav
 *
 * VOICE is a voice name (searched on TTS_VOICE_PATH and the usual folders) or a voice folder.
 * Audio is pulled chunk by chunk (tts_synthesize_start / tts_synthesize_next) and written as a
 * 16-bit mono WAV file; each sentence's words are listed with the times they are spoken at, from
 * the chunks' alignment (what a program would use for lip-sync or word highlighting). Build it
 * against an installed libtts with either cc speak.c $(pkg-config --cflags --libs tts) -o speak or
 * CMake: find_package(tts) and target_link_libraries(speak PRIVATE tts::tts)
 * (examples/CMakeLists.txt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tts/tts.h>

static void put_u32(FILE* f, unsigned long v) {
  unsigned char b[4];
  b[0] = (unsigned char)(v & 0xff);
  b[1] = (unsigned char)((v >> 8) & 0xff);
  b[2] = (unsigned char)((v >> 16) & 0xff);
  b[3] = (unsigned char)((v >> 24) & 0xff);
  fwrite(b, 1, 4, f);
}

static void put_u16(FILE* f, unsigned v) {
  unsigned char b[2];
  b[0] = (unsigned char)(v & 0xff);
  b[1] = (unsigned char)((v >> 8) & 0xff);
  fwrite(b, 1, 2, f);
}

/* A WAV header for `samples` 16-bit mono samples at `rate`. */
static void put_header(FILE* f, unsigned long samples, unsigned long rate) {
  fwrite("RIFF", 1, 4, f);
  put_u32(f, 36 + samples * 2);
  fwrite("WAVEfmt ", 1, 8, f);
  put_u32(f, 16);
  put_u16(f, 1); /* PCM */
  put_u16(f, 1); /* mono */
  put_u32(f, rate);
  put_u32(f, rate * 2);
  put_u16(f, 2);
  put_u16(f, 16);
  fwrite("data", 1, 4, f);
  put_u32(f, samples * 2);
}

/* Prints the words of a sentence (runs of phonemes between word boundaries) with their times in
 * the output, the sentence starting at sample `first` of it. */
static void print_words(const tts_chunk* chunk, unsigned long first) {
  char word[256];
  size_t i, length = 0, word_start = 0;
  for (i = 0; i <= chunk->alignment_count; ++i) {
    const tts_phoneme_span* span = i < chunk->alignment_count ? &chunk->alignment[i] : NULL;
    const int boundary = !span || strcmp(span->symbol, " ") == 0 ||
                         strcmp(span->symbol, "^") == 0 || strcmp(span->symbol, "$") == 0 ||
                         strcmp(span->symbol, ".") == 0 || strcmp(span->symbol, ",") == 0;
    if (boundary) {
      if (length > 0) {
        const size_t end =
            span ? span->start : chunk->alignment[i - 1].start + chunk->alignment[i - 1].count;
        fprintf(stderr, "speak:   %.3f to %.3f s  %s\n",
                (double)(first + word_start) / chunk->sample_rate,
                (double)(first + end) / chunk->sample_rate, word);
      }
      length = 0;
      continue;
    }
    if (length == 0) word_start = span->start;
    if (length + strlen(span->symbol) < sizeof word) {
      strcpy(word + length, span->symbol);
      length += strlen(span->symbol);
    }
  }
}

int main(int argc, char** argv) {
  tts_voice* voice = NULL;
  tts_stream* stream = NULL;
  tts_chunk chunk;
  tts_voice_info info;
  unsigned long samples = 0;
  int rate = 0, rc, sentence = -1;
  size_t i;
  FILE* out;

  if (argc != 4) {
    fprintf(stderr, "usage: %s VOICE TEXT OUT.wav   (libtts %s)\n", argv[0], tts_version());
    return 2;
  }
  rc = tts_voice_load(argv[1], NULL, &voice);
  if (rc != TTS_OK) {
    fprintf(stderr, "speak: %s: %s\n", tts_strerror(rc), tts_last_error());
    return 1;
  }
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  tts_voice_get_info(voice, &info);
  fprintf(stderr, "speak: voice %s (%s, %d Hz, licence %s)\n", info.name, info.language,
          info.sample_rate, info.licence);

  out = fopen(argv[3], "wb");
  if (!out) {
    perror(argv[3]);
    tts_voice_free(voice);
    return 1;
  }
  put_header(out, 0, 16000); /* rewritten with the real sizes at the end */

  rc = tts_stream_create(voice, &stream);
  if (rc == TTS_OK) rc = tts_synthesize_start(stream, argv[2], NULL);
  tts_chunk_init(&chunk);
  while (rc == TTS_OK && (rc = tts_synthesize_next(stream, &chunk)) == TTS_OK) {
    if (chunk.sentence_index != sentence && chunk.sentence_index >= 0) {
      sentence = chunk.sentence_index;
      fprintf(stderr, "speak: sentence %d: %s\n", sentence, chunk.sentence_text);
      print_words(&chunk, samples - (unsigned long)chunk.sentence_offset);
    }
    rate = chunk.sample_rate;
    for (i = 0; i < chunk.count; ++i) {
      float s = chunk.samples[i];
      long v = (long)(s * 32767.0f);
      if (v > 32767) v = 32767;
      if (v < -32768) v = -32768;
      put_u16(out, (unsigned)(v & 0xffff));
    }
    samples += (unsigned long)chunk.count;
  }
  if (rc != TTS_DONE) {
    fprintf(stderr, "speak: %s: %s\n", tts_strerror(rc),
            stream ? tts_stream_last_error(stream) : tts_last_error());
    fclose(out);
    remove(argv[3]);
    tts_stream_free(stream);
    tts_voice_free(voice);
    return 1;
  }
  fseek(out, 0, SEEK_SET);
  put_header(out, samples, (unsigned long)(rate ? rate : info.sample_rate));
  if (fclose(out) != 0) {
    perror(argv[3]);
    rc = TTS_ERR_INTERNAL;
  }
  fprintf(stderr, "speak: wrote %lu samples to %s\n", samples, argv[3]);
  tts_stream_free(stream);
  tts_voice_free(voice);
  return rc == TTS_DONE ? 0 : 1;
}
