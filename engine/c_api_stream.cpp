// The C API's streams (tts.h): synthesis options, chunks, and the calls that start, pull and cancel
// a synthesis. Every entry point catches everything: no exception crosses the C boundary.
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "c_api_support.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice_language.h"
#include "tts/tts.h"

using tts::c_api::fail;
using tts::c_api::fail_current;
using tts::c_api::thread_last_error;
using tts::engine::AudioChunk;
using tts::engine::SynthesisOptions;
using tts::engine::SynthesisStream;
using tts::engine::Voice;

struct tts_stream {
  std::shared_ptr<const Voice> voice;  // keeps the voice alive after tts_voice_free
  SynthesisStream stream;
  std::string last_error;
  enum class State { kIdle, kRunning, kFinished } state = State::kIdle;
  AudioChunk chunk;  // what the last tts_chunk points into
  // The chunk's sentence alignment in C form, rebuilt when the sentence changes. Holding the
  // sentence keeps its address from being reused by a later one while it is compared.
  std::vector<tts_phoneme_span> alignment;
  std::shared_ptr<const tts::engine::SentenceInfo> alignment_of;
  std::vector<tts_mark> marks;  // the chunk's marks in C form (their names are in `chunk`)
  // Set while a start/next/synthesize call runs: a second thread, or a callback calling back into
  // its own stream, gets TTS_ERR_STATE instead of corrupting the stream's threads.
  std::atomic<bool> in_call{false};
  tts::kernels::Device device;  // the voice's, for every start
  tts_stream(std::shared_ptr<const Voice> v, tts::kernels::Device d)
      : voice(v), stream(std::move(v)), device(d) {}
};

namespace {

tts_synthesis_options synthesis_option_defaults() {
  const SynthesisOptions d;
  tts_synthesis_options o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.rate = d.rate;
  o.pitch_semitones = d.pitch_semitones;
  o.volume = d.volume;
  o.sentence_silence = d.sentence_silence;
  o.seed = d.seed;
  o.temperature = d.temperature;
  o.threads = d.threads;
  o.ssml = d.ssml ? 1 : 0;
  o.chunk_samples = d.chunk_samples;
  return o;
}

tts_chunk empty_chunk() {
  tts_chunk c;
  std::memset(&c, 0, sizeof c);
  return c;
}

// The structs' sizes in the first version of this header (1.0): the end of their last field then.
// Appending a field leaves these as they are.
constexpr std::size_t kSynthesisOptionsV1 =
    offsetof(tts_synthesis_options, chunk_samples) + sizeof(std::size_t);
// And tts_chunk's: up to sentence_offset (alignment and marks were appended).
constexpr std::size_t kChunkV1 = offsetof(tts_chunk, sentence_offset) + sizeof(std::size_t);

void fill_chunk(tts_stream* s, tts_chunk* c) {
  const AudioChunk& a = s->chunk;
  static const std::string empty;
  const auto& info = a.sentence;
  TTS_SET_FIELD(c, tts_chunk, samples, a.samples.data());
  TTS_SET_FIELD(c, tts_chunk, count, a.samples.size());
  TTS_SET_FIELD(c, tts_chunk, sample_rate, a.sample_rate);
  TTS_SET_FIELD(c, tts_chunk, is_last, a.is_last ? 1 : 0);
  TTS_SET_FIELD(c, tts_chunk, sentence_index, info ? info->index : -1);
  TTS_SET_FIELD(c, tts_chunk, sentence_text, info ? info->text.c_str() : empty.c_str());
  TTS_SET_FIELD(c, tts_chunk, phonemes, info ? info->phonemes.c_str() : empty.c_str());
  TTS_SET_FIELD(c, tts_chunk, phoneme, a.phoneme.c_str());
  TTS_SET_FIELD(c, tts_chunk, sentence_offset, a.sentence_offset);
  if (info != s->alignment_of) {
    s->alignment.clear();
    if (info)
      for (const auto& span : info->alignment)
        s->alignment.push_back({span.symbol.c_str(), span.start, span.count});
    s->alignment_of = info;
  }
  TTS_SET_FIELD(c, tts_chunk, alignment, s->alignment.empty() ? nullptr : s->alignment.data());
  TTS_SET_FIELD(c, tts_chunk, alignment_count, s->alignment.size());
  s->marks.clear();
  for (const auto& m : a.marks) s->marks.push_back({m.name.c_str(), m.sample, m.stream_sample});
  TTS_SET_FIELD(c, tts_chunk, marks, s->marks.empty() ? nullptr : s->marks.data());
  TTS_SET_FIELD(c, tts_chunk, mark_count, s->marks.size());
}

// Marks the stream busy for one call (see tts_stream::in_call).
class CallGuard {
 public:
  explicit CallGuard(tts_stream* s) : s_(s), entered_(!s->in_call.exchange(true)) {}
  ~CallGuard() {
    if (entered_) s_->in_call = false;
  }
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;
  // False when another call is running; the message goes to the calling thread's tts_last_error(),
  // because the stream's own message belongs to the call that is running.
  bool entered() const {
    if (!entered_)
      fail(thread_last_error(), TTS_ERR_STATE,
           "the stream is already in a call: use a stream from one thread at a time, and do not "
           "call back into a stream from its own callback (tts_stream_cancel is allowed)");
    return entered_;
  }

 private:
  tts_stream* s_;
  bool entered_;
};

constexpr std::size_t kMinChunkSize = offsetof(tts_chunk, count) + sizeof(std::size_t);

int start(tts_stream* s, const char* text, const tts_synthesis_options* options) {
  if (!text) return fail(s->last_error, TTS_ERR_INVALID_ARGUMENT, "text is NULL");
  tts_synthesis_options o;
  if (!tts::c_api::read_options(options, o, synthesis_option_defaults, kSynthesisOptionsV1,
                                "tts_synthesis_options", s->last_error))
    return TTS_ERR_INVALID_ARGUMENT;
  SynthesisOptions so;
  so.rate = o.rate;
  so.pitch_semitones = o.pitch_semitones;
  so.volume = o.volume;
  so.sentence_silence = o.sentence_silence;
  so.seed = o.seed;
  so.temperature = o.temperature;
  so.threads = o.threads;
  so.ssml = o.ssml != 0;
  so.chunk_samples = o.chunk_samples;
  if (o.language) {  // NULL is the voice's first language; "" is refused, not taken for NULL
    if (const auto problem = tts::engine::language_tag_problem(o.language))
      return fail(s->last_error, TTS_ERR_INVALID_ARGUMENT, *problem);
    so.language = o.language;
  }
  so.device = s->device;
  s->state = tts_stream::State::kIdle;
  s->stream.start(text, so);  // validates the options (std::invalid_argument)
  s->state = tts_stream::State::kRunning;
  return TTS_OK;
}

int next(tts_stream* s, tts_chunk* chunk) {
  if (s->state == tts_stream::State::kIdle)
    return fail(s->last_error, TTS_ERR_STATE, "tts_synthesize_next before tts_synthesize_start");
  if (s->state == tts_stream::State::kFinished) return TTS_DONE;
  try {
    if (!s->stream.next(s->chunk)) {
      s->state = tts_stream::State::kFinished;
      return TTS_DONE;
    }
  } catch (...) {
    s->state = tts_stream::State::kFinished;
    throw;
  }
  fill_chunk(s, chunk);
  return TTS_OK;
}

}  // namespace

extern "C" {

void tts_default_synthesis_options_sized(tts_synthesis_options* options, size_t size) {
  tts::c_api::write_defaults(synthesis_option_defaults(), options, size);
}

void tts_chunk_init_sized(tts_chunk* chunk, size_t size) {
  tts::c_api::write_defaults(empty_chunk(), chunk, size);
}

// The first version's entry points (in parentheses: the header's macros of the same names).
void(tts_default_synthesis_options)(tts_synthesis_options* options) {
  tts_default_synthesis_options_sized(options, kSynthesisOptionsV1);
}

void(tts_chunk_init)(tts_chunk* chunk) { tts_chunk_init_sized(chunk, kChunkV1); }

int tts_stream_create(const tts_voice* voice, tts_stream** out_stream) {
  try {
    if (!out_stream)
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "out_stream is NULL");
    *out_stream = nullptr;
    if (!voice) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "voice is NULL");
    *out_stream = new tts_stream(voice->voice, voice->device);
    return TTS_OK;
  } catch (...) {
    return fail_current(thread_last_error());
  }
}

void tts_stream_free(tts_stream* stream) {
  try {
    delete stream;
  } catch (...) {
  }
}

const char* tts_stream_last_error(const tts_stream* stream) {
  if (!stream) return "stream is NULL";
  return stream->last_error.c_str();
}

int tts_synthesize_start(tts_stream* stream, const char* text,
                         const tts_synthesis_options* options) {
  if (!stream) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
  CallGuard guard(stream);
  if (!guard.entered()) return TTS_ERR_STATE;
  try {
    return start(stream, text, options);
  } catch (...) {
    return fail_current(stream->last_error);
  }
}

int tts_synthesize_next(tts_stream* stream, tts_chunk* chunk) {
  if (!stream) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
  CallGuard guard(stream);
  if (!guard.entered()) return TTS_ERR_STATE;
  try {
    if (!chunk || chunk->struct_size < kMinChunkSize)
      return fail(stream->last_error, TTS_ERR_INVALID_ARGUMENT,
                  "chunk is NULL or its struct_size is too small (use tts_chunk_init)");
    return next(stream, chunk);
  } catch (...) {
    return fail_current(stream->last_error);
  }
}

int tts_synthesize(tts_stream* stream, const char* text, const tts_synthesis_options* options,
                   tts_audio_callback callback, void* user_data) {
  if (!stream) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
  CallGuard guard(stream);
  if (!guard.entered()) return TTS_ERR_STATE;
  try {
    if (!callback) return fail(stream->last_error, TTS_ERR_INVALID_ARGUMENT, "callback is NULL");
    int rc = start(stream, text, options);
    if (rc != TTS_OK) return rc;
    tts_chunk chunk;
    tts_chunk_init(&chunk);
    while ((rc = next(stream, &chunk)) == TTS_OK) {
      if (callback(&chunk, user_data) != 0) {
        stream->stream.cancel();
        stream->state = tts_stream::State::kFinished;
        return fail(stream->last_error, TTS_ERR_CANCELLED, "stopped by the callback");
      }
    }
    return rc == TTS_DONE ? TTS_OK : rc;
  } catch (...) {
    return fail_current(stream->last_error);
  }
}

int tts_stream_cancel(tts_stream* stream) {
  if (!stream) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
  try {
    stream->stream.cancel();
    return TTS_OK;
  } catch (...) {
    return TTS_ERR_INTERNAL;
  }
}

}  // extern "C"
