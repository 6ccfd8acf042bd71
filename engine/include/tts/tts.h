/* tts.h: the C API of libtts, a text-to-speech engine with a WaveNet vocoder (C99, no other
 * headers of this project needed).
 *
 * Use:
 *   tts_voice* voice;  tts_stream* stream;  tts_chunk chunk;  int rc;
 *   if (tts_voice_load("default", NULL, &voice) != TTS_OK) { puts(tts_last_error()); ... }
 *   tts_stream_create(voice, &stream);
 *   tts_synthesize_start(stream, "Hello, world.", NULL);
 *   tts_chunk_init(&chunk);
 *   while ((rc = tts_synthesize_next(stream, &chunk)) == TTS_OK) play(chunk.samples, chunk.count);
 *   if (rc != TTS_DONE) puts(tts_stream_last_error(stream));
 *   tts_stream_free(stream);  tts_voice_free(voice);
 *
 * Status codes: every function that can fail returns an int, TTS_OK (0) on success and a negative
 * TTS_ERR_* code on failure; tts_synthesize_next returns TTS_DONE (1) at the end. tts_strerror()
 * names a code; the detailed message of the last failure is tts_stream_last_error(stream) for
 * functions taking a stream, tts_last_error() (per calling thread) for the others. No C++
 * exception ever leaves this library; out of memory is reported as TTS_ERR_NO_MEMORY.
 *
 * Thread-safety:
 *   - A tts_voice is immutable once loaded: any number of threads may use one voice at once.
 *   - A tts_stream belongs to one thread at a time: do not call two functions on one stream
 *     concurrently, except tts_stream_cancel(), which any thread may call while the stream exists.
 *   - Use one stream per thread; many streams may share one voice.
 *   - tts_version, tts_strerror, tts_last_error and tts_default_*_options may be called any time.
 *
 * Ownership:
 *   - Every pointer the library returns through a tts_chunk or a tts_voice_info stays owned by
 *     the library. Chunk pointers are valid until the next call on the same stream (next, start,
 *     synthesize, free); voice-info strings while the voice handle (or the tts_voice_list they
 *     came from) lives. Copy what you keep.
 *   - Strings you pass in are copied before the call returns.
 *   - tts_voice_free() may be called while streams created from the voice are still open: the
 *     streams keep the voice's data alive and stay fully usable; the memory is released when the
 *     last of them is freed. Using the freed tts_voice handle itself afterwards is undefined.
 *   - Passing NULL to tts_voice_free / tts_stream_free does nothing.
 */
#ifndef TTS_TTS_H
#define TTS_TTS_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TTS_API
#elif defined(__GNUC__)
#define TTS_API __attribute__((visibility("default")))
#else
#define TTS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TTS_VERSION_MAJOR 0
#define TTS_VERSION_MINOR 1
#define TTS_VERSION_PATCH 0

/* Status codes. */
#define TTS_OK 0
#define TTS_DONE 1                  /* tts_synthesize_next: no more chunks */
#define TTS_ERR_INVALID_ARGUMENT -1 /* NULL pointer, bad struct_size, option out of range */
#define TTS_ERR_NOT_FOUND -2        /* no voice of that name on the search path */
#define TTS_ERR_BAD_VOICE -3        /* voice files missing, truncated, corrupted or inconsistent */
#define TTS_ERR_BAD_INPUT -4        /* text or SSML that cannot be spoken (invalid UTF-8, markup) */
#define TTS_ERR_STATE -5            /* call out of order, e.g. next before start */
#define TTS_ERR_CANCELLED -6        /* stopped by tts_stream_cancel or by the callback */
#define TTS_ERR_NO_MEMORY -7
#define TTS_ERR_UNSUPPORTED -8 /* e.g. CUDA requested but not built or no GPU */
#define TTS_ERR_INTERNAL -9    /* anything else; see the message */

/* Compute devices. */
#define TTS_DEVICE_CPU 0
#define TTS_DEVICE_CUDA 1

/* Options structs are versioned by their size: fill them with tts_default_*_options(), which
 * sets struct_size, then change the fields you need. Passing NULL means "all defaults". Later
 * versions only append fields, so a program built against this header keeps working (a smaller
 * struct_size keeps the defaults of the fields it lacks; docs/c-api.md). */
typedef struct tts_voice_options {
  size_t struct_size;
  int device; /* TTS_DEVICE_CPU (default) or TTS_DEVICE_CUDA: the CUDA backend is opened on the
                first load that asks for it, and the voice's vocoder uploaded at load once for all
                its streams; a vocoder the GPU sampler cannot take is refused there with
                TTS_ERR_UNSUPPORTED naming the limit */
} tts_voice_options;

typedef struct tts_synthesis_options {
  size_t struct_size;
  float rate;             /* speaking rate, (0, 10]; 1 = the voice's own, 2 = twice as fast */
  float pitch_semitones;  /* pitch shift, [-24, 24] (where the voice can shift its pitch) */
  float volume;           /* amplitude multiplier, [0, 100]; 1 = unchanged */
  float sentence_silence; /* seconds of silence between sentences, [0, 60]; default 0.2 */
  uint64_t seed;          /* sampling seed: same seed and text give the same audio */
  float temperature;      /* vocoder sampling temperature, [0, 10]; 0 = arg-max; default 1 */
  int threads; /* vocoder threads for this stream, [1, 256] (audio does not depend on it) */
  int ssml;    /* nonzero: the text is SSML (<speak>...</speak>) */
  size_t chunk_samples; /* samples per chunk, >= 1; default 2048 (the first is at most 256) */
  /* The text's language, a BCP 47 tag the voice speaks (tts_voice_info.languages; "es" finds
   * "es-MX"): its text rules and espeak-ng voice read the text, and SSML xml:lang switches from
   * it. NULL (the default): the voice's first language. One the voice does not speak, and an
   * empty tag "", are TTS_ERR_INVALID_ARGUMENT. (Appended after chunk_samples: a smaller
   * struct_size leaves it NULL.) */
  const char* language;
} tts_synthesis_options;

/* One symbol of a sentence and where it sounds: samples [start, start + count) of the sentence's
 * audio, counted from its first sample (as sentence_offset is), from the predicted durations. */
typedef struct tts_phoneme_span {
  const char* symbol; /* UTF-8: an IPA symbol, " " a word boundary, "^" and "$" the edges */
  size_t start;
  size_t count;
} tts_phoneme_span;

/* An SSML <mark name="..."/> (input with ssml set) as the audio reaches it: it falls just before
 * samples[sample] of its chunk, so a player fires it when that sample is played, i.e. once the
 * `sample` samples of the chunk before it have been played. 0 <= sample < count, except that marks
 * at the very end of the input come with the last chunk at sample == count (and input with marks
 * but no audio gives one last chunk of count 0 carrying them). Every mark is reported exactly once,
 * in document order, by pull and callback alike. A mark before a word falls where the word's first
 * symbol starts in `alignment`; docs/c-api.md says where the others fall. */
typedef struct tts_mark {
  const char* name;       /* UTF-8, as in the SSML (names need not be unique) */
  size_t sample;          /* offset in this chunk's samples, [0, count] */
  uint64_t stream_sample; /* offset from the stream's first sample */
} tts_mark;

/* One chunk of audio. Initialise with tts_chunk_init() (sets struct_size). */
typedef struct tts_chunk {
  size_t struct_size;
  const float* samples;      /* mono, nominally in [-1, 1]; owned by the stream */
  size_t count;              /* number of samples */
  int sample_rate;           /* Hz */
  int is_last;               /* nonzero on the last chunk of the input */
  int sentence_index;        /* 0, 1, ... in input order; -1 for a pause from SSML <break> */
  const char* sentence_text; /* UTF-8 sentence this chunk belongs to ("" for a pause) */
  const char* phonemes;      /* IPA of the whole sentence ("" for a pause) */
  const char* phoneme;       /* symbol sounding at the chunk's first sample ("" in silence) */
  size_t sentence_offset;    /* offset in samples of this chunk within its sentence */
  /* The sentence's alignment: every symbol of its phonemes in order, the spans tiling its audio
   * (the silence after a sentence is not in them). The same array for every chunk of the sentence;
   * NULL and 0 for a pause. Valid as long as the chunk. (Appended after the fields above: a
   * caller built against a header without them has a smaller struct_size and is not given them.) */
  const tts_phoneme_span* alignment;
  size_t alignment_count;
  /* The SSML marks falling in this chunk, in order (NULL and 0 when none); valid as long as the
   * chunk. (Appended after alignment: a smaller struct_size is not given them.) */
  const tts_mark* marks;
  size_t mark_count;
} tts_chunk;

typedef struct tts_voice_info {
  size_t struct_size;
  const char* name;
  const char* language; /* espeak-ng voice, e.g. "en-us" */
  int sample_rate;
  const char* licence;
  const char* source; /* where the recordings came from */
  const char* path;   /* the voice folder */
  uint64_t size_bytes;
  /* The languages it speaks as BCP 47 tags joined by commas: "en-US", "en-US,es-MX". (Appended
   * after size_bytes: a caller built against a header without it is not given it.) */
  const char* languages;
  /* Who speaks, and "female" or "male"; "" when voice.json does not say. (Appended after
   * languages.) */
  const char* speaker;
  const char* sex;
} tts_voice_info;

typedef struct tts_voice tts_voice;
typedef struct tts_stream tts_stream;

/* Called with each chunk by tts_synthesize(). Return 0 to continue, nonzero to stop (then
 * tts_synthesize returns TTS_ERR_CANCELLED). The chunk is valid only during the call. */
typedef int (*tts_audio_callback)(const tts_chunk* chunk, void* user_data);

/* "0.1.0": the library's version (may differ from the header's TTS_VERSION_* macros). */
TTS_API const char* tts_version(void);
/* A static English description of a status code; never NULL. */
TTS_API const char* tts_strerror(int status);
/* Message of the last failure on this thread of a call that takes no stream (voice loading,
 * stream creation, NULL-stream errors); "" if none. Valid until the next failing call on the
 * same thread. */
TTS_API const char* tts_last_error(void);

/* Fill a struct with the defaults and set its struct_size to `size`, the caller's sizeof: a
 * program built against an older header passes its smaller struct and is written only up to its
 * end; bytes past the fields this library knows are cleared. Call them through the macros below,
 * which pass sizeof. NULL, or a size too small for struct_size, is a no-op. */
TTS_API void tts_default_voice_options_sized(tts_voice_options* options, size_t size);
TTS_API void tts_default_synthesis_options_sized(tts_synthesis_options* options, size_t size);
TTS_API void tts_chunk_init_sized(tts_chunk* chunk, size_t size);
/* The entry points of the first version, for programs built against it: they fill only the
 * first version's fields (a tts_chunk without alignment and marks), never more than such a
 * program's struct holds. */
TTS_API void(tts_default_voice_options)(tts_voice_options* options);
TTS_API void(tts_default_synthesis_options)(tts_synthesis_options* options);
TTS_API void(tts_chunk_init)(tts_chunk* chunk);
#define tts_default_voice_options(options) \
  tts_default_voice_options_sized((options), sizeof *(options))
#define tts_default_synthesis_options(options) \
  tts_default_synthesis_options_sized((options), sizeof *(options))
#define tts_chunk_init(chunk) tts_chunk_init_sized((chunk), sizeof *(chunk))

/* Loads a voice by name (searched on the voice search path: tts_voice_list_create) or by folder
 * path (anything containing '/'). Checks every file; never falls back to another voice. On failure
 * *out_voice is set to NULL. */
TTS_API int tts_voice_load(const char* name_or_path, const tts_voice_options* options,
                           tts_voice** out_voice);
TTS_API void tts_voice_free(tts_voice* voice);
/* Fills `info` (struct_size set by the caller, e.g. sizeof info). */
TTS_API int tts_voice_get_info(const tts_voice* voice, tts_voice_info* info);

/* The installed voices and the folders searched for them, as a snapshot: tts_voice_list_create()
 * reads the search path (from the environment at that moment) and the voices in it; nothing is
 * loaded. The search path, in order: each folder of $TTS_VOICE_PATH (colon-separated), then
 * $XDG_DATA_HOME/tts/voices (or $HOME/.local/share/tts/voices), then the voices installed with this
 * library, <prefix>/share/tts/voices, found from where libtts.so is at run time (so a moved prefix
 * still finds its own; a library run from its build tree searches its source tree's voices/
 * instead). Folders that do not exist are listed too. Every string belongs to the list and stays
 * valid until tts_voice_list_free(); a list is immutable, so any number of threads may read one.
 * On failure *out_list is set to NULL. */
typedef struct tts_voice_list tts_voice_list;
TTS_API int tts_voice_list_create(tts_voice_list** out_list);
TTS_API void tts_voice_list_free(tts_voice_list* list);
/* The folders of the search path: the count (0 for NULL), and folder `index` (UTF-8; NULL when
 * `index` is not below the count). */
TTS_API size_t tts_voice_list_search_path_count(const tts_voice_list* list);
TTS_API const char* tts_voice_list_search_path(const tts_voice_list* list, size_t index);
/* The voices found (folders holding a voice.json; a name found in two folders is listed once, from
 * the first, the one tts_voice_load would take), in search-path order: the count (0 for NULL), and
 * voice `index` into `info` (struct_size set by the caller), read from its voice.json. info->name
 * is the name tts_voice_load finds it by (its folder's name; tts_voice_get_info gives the name
 * voice.json states), info->path its folder. A voice whose voice.json cannot be read still has its
 * name and path filled (the other strings "", numbers 0) and returns TTS_ERR_BAD_VOICE, the reason
 * in tts_last_error(). */
TTS_API size_t tts_voice_list_count(const tts_voice_list* list);
TTS_API int tts_voice_list_get(const tts_voice_list* list, size_t index, tts_voice_info* info);

/* A synthesis stream on `voice`. On failure *out_stream is set to NULL. */
TTS_API int tts_stream_create(const tts_voice* voice, tts_stream** out_stream);
/* Cancels any synthesis in progress, waits for its threads, frees the stream. */
TTS_API void tts_stream_free(tts_stream* stream);
/* Message of the last failure on this stream; "" if none. Valid until the next call on it. */
TTS_API const char* tts_stream_last_error(const tts_stream* stream);

/* Pull form. start() begins synthesising `text` (UTF-8) in the background and returns at once;
 * a synthesis still in progress on this stream is cancelled first. next() waits for the next
 * chunk: TTS_OK with `chunk` filled, TTS_DONE when there is nothing more (also for text with
 * nothing to say), or an error (TTS_ERR_CANCELLED after tts_stream_cancel; TTS_ERR_BAD_INPUT for
 * text that cannot be spoken, after the audio of the sentences before it). After TTS_DONE or an
 * error, next() keeps returning TTS_DONE until the next start(). */
TTS_API int tts_synthesize_start(tts_stream* stream, const char* text,
                                 const tts_synthesis_options* options);
TTS_API int tts_synthesize_next(tts_stream* stream, tts_chunk* chunk);

/* Callback form: synthesises all of `text`, calling `callback` with each chunk on the calling
 * thread. Returns TTS_OK when done, TTS_ERR_CANCELLED when the callback returned nonzero or
 * tts_stream_cancel was called, or another error. */
TTS_API int tts_synthesize(tts_stream* stream, const char* text,
                           const tts_synthesis_options* options, tts_audio_callback callback,
                           void* user_data);

/* Stops the synthesis in progress as soon as possible (within one chunk); a next() waiting in
 * another thread returns TTS_ERR_CANCELLED. Safe from any thread while the stream exists; does
 * nothing when no synthesis runs. */
TTS_API int tts_stream_cancel(tts_stream* stream);

#ifdef __cplusplus
}
#endif

#endif /* TTS_TTS_H */
