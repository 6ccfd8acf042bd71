// The C API (tts.h) over the C++ engine. Every entry point catches everything: no exception
// crosses the C boundary.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "tts/build_info.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "tts/kernels/device.h"
#include "tts/tts.h"

static_assert(TTS_VERSION_MAJOR == 0 && TTS_VERSION_MINOR == 1 && TTS_VERSION_PATCH == 0,
              "update the TTS_VERSION_* macros of tts.h with the project version");

using tts::engine::AudioChunk;
using tts::engine::SynthesisOptions;
using tts::engine::SynthesisStream;
using tts::engine::Voice;

struct tts_voice {
  std::shared_ptr<const Voice> voice;
  std::string path;
  std::string languages;  // VoiceInfo::languages_text(), for tts_voice_info.languages
  // Where its streams' vocoders sample (tts_voice_options.device, checked when loaded).
  tts::kernels::Device device = tts::kernels::Device::kCpu;
};

struct tts_voice_list {
  struct Entry {
    std::string name, language, languages, licence, source, path, speaker, sex;
    int sample_rate = 0;
    std::uint64_t size_bytes = 0;
    std::string error;  // why voice.json could not be read; "" when it could
  };
  std::vector<std::string> search_path;
  std::vector<Entry> voices;
};

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

thread_local std::string g_last_error;

// Maps the exception being handled to a status code and its message.
int status_of_current_exception(std::string& message) {
  try {
    throw;
  } catch (const tts::engine::SynthesisCancelled& e) {
    message = e.what();
    return TTS_ERR_CANCELLED;
  } catch (const tts::engine::SynthesisInputError& e) {
    message = e.what();
    return TTS_ERR_BAD_INPUT;
  } catch (const tts::engine::VoiceNotFoundError& e) {
    message = e.what();
    return TTS_ERR_NOT_FOUND;
  } catch (const tts::engine::VoiceError& e) {
    message = e.what();
    return TTS_ERR_BAD_VOICE;
  } catch (const std::bad_alloc&) {
    message = "out of memory";
    return TTS_ERR_NO_MEMORY;
  } catch (const std::invalid_argument& e) {
    message = e.what();
    return TTS_ERR_INVALID_ARGUMENT;
  } catch (const std::logic_error& e) {
    message = e.what();
    return TTS_ERR_STATE;
  } catch (const std::exception& e) {
    message = e.what();
    return TTS_ERR_INTERNAL;
  } catch (...) {
    message = "unknown error";
    return TTS_ERR_INTERNAL;
  }
}

int fail(std::string& where, int status, const char* message) {
  try {
    where = message;
  } catch (...) {
  }
  return status;
}

int fail(std::string& where, int status, const std::string& message) {
  return fail(where, status, message.c_str());
}

// The C API's device numbers (tts.h) as the engine's one device type; nullopt for any other.
std::optional<tts::kernels::Device> device_of(int device) {
  switch (device) {
    case TTS_DEVICE_CPU:
      return tts::kernels::Device::kCpu;
    case TTS_DEVICE_CUDA:
      return tts::kernels::Device::kCuda;
    default:
      return std::nullopt;
  }
}

// Why the CUDA sampler cannot sample `voice`'s vocoder, naming the limit; empty when it can.
std::string cuda_sampling_refusal(const Voice& voice) {
  const tts::vocoder::WaveNetConfig& c = voice.vocoder().weights->config();
  return tts::kernels::cuda::wavenet_sampling_refusal(
      {c.layers, c.residual_channels, c.skip_channels, c.classes});
}

int fail_current(std::string& where) {
  std::string message;
  int status;
  try {
    status = status_of_current_exception(message);
    where = std::move(message);
  } catch (...) {
    status = TTS_ERR_NO_MEMORY;
  }
  return status;
}

// Copies the defaults in `full` into the caller's `size` bytes: never past them, the bytes after
// the fields this library knows cleared, struct_size set to the caller's size.
template <typename T>
void write_defaults(const T& full, T* out, std::size_t size) {
  if (!out || size < sizeof(std::size_t)) return;
  std::memset(out, 0, size);
  std::memcpy(out, &full, std::min(size, sizeof(T)));
  out->struct_size = size;
}

tts_voice_options voice_option_defaults() {
  tts_voice_options o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.device = TTS_DEVICE_CPU;
  return o;
}

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

// Input options, versioned by struct_size as the header promises: a program built against an older
// header passes a smaller struct (at least the first version's size), whose missing fields keep
// their defaults; one built against a newer header may pass a larger struct only if the fields this
// library does not know are all zero (unset), because ignoring a value it was asked for would be
// wrong. (The rule of Linux's copy_struct_from_user.)
template <typename T>
bool read_options(const T* given, T& out, T (*defaults)(), std::size_t first_version_size,
                  const char* name, std::string& error) {
  out = defaults();
  if (!given) return true;
  const std::size_t size = given->struct_size;
  if (size < first_version_size) {
    error = std::string(name) + " struct_size " + std::to_string(size) +
            " is smaller than its first version's " + std::to_string(first_version_size) +
            " (fill it with tts_default_*_options)";
    return false;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(given);
  for (std::size_t i = sizeof(T); i < size; ++i)
    if (bytes[i] != 0) {
      error = std::string(name) + " struct_size " + std::to_string(size) + " has fields (byte " +
              std::to_string(i) +
              " is set) that this library, version " TTS_VERSION_STRING
              ", does not know; it reads " +
              std::to_string(sizeof(T)) + " bytes";
      return false;
    }
  std::memcpy(&out, given, std::min(size, sizeof(T)));
  out.struct_size = sizeof(T);
  return true;
}

// The options structs' sizes in the first version of this header (1.0): the end of their last
// field then. Appending a field leaves these as they are.
constexpr std::size_t kSynthesisOptionsV1 =
    offsetof(tts_synthesis_options, chunk_samples) + sizeof(std::size_t);
constexpr std::size_t kVoiceOptionsV1 = offsetof(tts_voice_options, device) + sizeof(int);
// And tts_chunk's: up to sentence_offset (alignment and marks were appended).
constexpr std::size_t kChunkV1 = offsetof(tts_chunk, sentence_offset) + sizeof(std::size_t);

// Sets a field of an output struct only when the caller's struct_size covers it.
#define TTS_SET_FIELD(ptr, type, field, value)                              \
  do {                                                                      \
    if (offsetof(type, field) + sizeof((ptr)->field) <= (ptr)->struct_size) \
      (ptr)->field = (value);                                               \
  } while (0)

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
      fail(g_last_error, TTS_ERR_STATE,
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
  if (!read_options(options, o, synthesis_option_defaults, kSynthesisOptionsV1,
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
  if (o.language) so.language = o.language;
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

const char* tts_version(void) { return TTS_VERSION_STRING; }

const char* tts_strerror(int status) {
  switch (status) {
    case TTS_OK:
      return "success";
    case TTS_DONE:
      return "done: no more audio";
    case TTS_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case TTS_ERR_NOT_FOUND:
      return "voice not found";
    case TTS_ERR_BAD_VOICE:
      return "voice files missing, truncated, corrupted or inconsistent";
    case TTS_ERR_BAD_INPUT:
      return "text or SSML cannot be spoken";
    case TTS_ERR_STATE:
      return "call out of order";
    case TTS_ERR_CANCELLED:
      return "cancelled";
    case TTS_ERR_NO_MEMORY:
      return "out of memory";
    case TTS_ERR_UNSUPPORTED:
      return "not supported by this build or machine";
    case TTS_ERR_INTERNAL:
      return "internal error";
    default:
      return "unknown status code";
  }
}

const char* tts_last_error(void) { return g_last_error.c_str(); }

void tts_default_voice_options_sized(tts_voice_options* options, size_t size) {
  write_defaults(voice_option_defaults(), options, size);
}

void tts_default_synthesis_options_sized(tts_synthesis_options* options, size_t size) {
  write_defaults(synthesis_option_defaults(), options, size);
}

void tts_chunk_init_sized(tts_chunk* chunk, size_t size) {
  write_defaults(empty_chunk(), chunk, size);
}

// The first version's entry points (in parentheses: the header's macros of the same names).
void(tts_default_voice_options)(tts_voice_options* options) {
  tts_default_voice_options_sized(options, kVoiceOptionsV1);
}

void(tts_default_synthesis_options)(tts_synthesis_options* options) {
  tts_default_synthesis_options_sized(options, kSynthesisOptionsV1);
}

void(tts_chunk_init)(tts_chunk* chunk) { tts_chunk_init_sized(chunk, kChunkV1); }

int tts_voice_load(const char* name_or_path, const tts_voice_options* options,
                   tts_voice** out_voice) {
  try {
    if (!out_voice) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "out_voice is NULL");
    *out_voice = nullptr;
    if (!name_or_path) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "voice name is NULL");
    tts_voice_options o;
    if (!read_options(options, o, voice_option_defaults, kVoiceOptionsV1, "tts_voice_options",
                      g_last_error))
      return TTS_ERR_INVALID_ARGUMENT;
    const std::optional<tts::kernels::Device> device = device_of(o.device);
    if (!device)
      return fail(
          g_last_error, TTS_ERR_INVALID_ARGUMENT,
          "unknown device " + std::to_string(o.device) + " (TTS_DEVICE_CPU or TTS_DEVICE_CUDA)");
    auto handle = std::make_unique<tts_voice>();
    handle->device = *device;
    const auto folder = tts::engine::resolve_voice(name_or_path);
    handle->voice = Voice::load(folder);
    handle->path = folder.string();
    handle->languages = handle->voice->info().languages_text();
    if (*device == tts::kernels::Device::kCuda) {
      // The vocoder's shape first: a voice the GPU sampler cannot take is refused the same way on
      // every machine, before CUDA is touched, and never accepted only to fail at synthesis.
      const std::string refusal = cuda_sampling_refusal(*handle->voice);
      if (!refusal.empty())
        return fail(g_last_error, TTS_ERR_UNSUPPORTED,
                    "TTS_DEVICE_CUDA cannot sample this voice: " + refusal +
                        " (TTS_DEVICE_CPU samples every voice)");
      try {  // the CUDA library is loaded here, and only here, when asked for
        tts::kernels::require_device(*device);
      } catch (const std::exception& e) {
        return fail(g_last_error, TTS_ERR_UNSUPPORTED,
                    std::string("TTS_DEVICE_CUDA is unavailable: ") + e.what() +
                        " (TTS_DEVICE_CPU works everywhere)");
      }
      try {  // uploaded now, for all its streams: what this device cannot hold fails here
        handle->voice->cuda_vocoder();
      } catch (const std::invalid_argument& e) {
        return fail(g_last_error, TTS_ERR_UNSUPPORTED,
                    std::string("TTS_DEVICE_CUDA cannot sample this voice on this device: ") +
                        e.what() + " (TTS_DEVICE_CPU samples every voice)");
      }
    }
    *out_voice = handle.release();
    return TTS_OK;
  } catch (...) {
    return fail_current(g_last_error);
  }
}

void tts_voice_free(tts_voice* voice) { delete voice; }

int tts_voice_get_info(const tts_voice* voice, tts_voice_info* info) {
  try {
    if (!voice || !info)
      return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "voice or info is NULL");
    if (info->struct_size < offsetof(tts_voice_info, name) + sizeof(const char*))
      return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "info->struct_size too small");
    const auto& i = voice->voice->info();
    TTS_SET_FIELD(info, tts_voice_info, name, i.name.c_str());
    TTS_SET_FIELD(info, tts_voice_info, language, i.language.c_str());
    TTS_SET_FIELD(info, tts_voice_info, sample_rate, i.sample_rate);
    TTS_SET_FIELD(info, tts_voice_info, licence, i.licence.c_str());
    TTS_SET_FIELD(info, tts_voice_info, source, i.source.c_str());
    TTS_SET_FIELD(info, tts_voice_info, path, voice->path.c_str());
    TTS_SET_FIELD(info, tts_voice_info, size_bytes, i.total_bytes());
    TTS_SET_FIELD(info, tts_voice_info, languages, voice->languages.c_str());
    TTS_SET_FIELD(info, tts_voice_info, speaker, i.speaker.c_str());
    TTS_SET_FIELD(info, tts_voice_info, sex, i.sex.c_str());
    return TTS_OK;
  } catch (...) {
    return fail_current(g_last_error);
  }
}

int tts_voice_list_create(tts_voice_list** out_list) {
  try {
    if (!out_list) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "out_list is NULL");
    *out_list = nullptr;
    auto list = std::make_unique<tts_voice_list>();
    for (const auto& folder : tts::engine::voice_search_path())
      list->search_path.push_back(folder.string());
    for (const auto& folder : tts::engine::list_voices()) {
      tts_voice_list::Entry e;
      e.name = folder.filename().string();
      e.path = folder.string();
      try {
        const auto i = tts::engine::read_voice_info(folder);
        e.language = i.language;
        e.languages = i.languages_text();
        e.speaker = i.speaker;
        e.sex = i.sex;
        e.licence = i.licence;
        e.source = i.source;
        e.sample_rate = i.sample_rate;
        e.size_bytes = i.total_bytes();
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& error) {
        e.error = error.what();
      }
      list->voices.push_back(std::move(e));
    }
    *out_list = list.release();
    return TTS_OK;
  } catch (...) {
    return fail_current(g_last_error);
  }
}

void tts_voice_list_free(tts_voice_list* list) { delete list; }

size_t tts_voice_list_search_path_count(const tts_voice_list* list) {
  return list ? list->search_path.size() : 0;
}

const char* tts_voice_list_search_path(const tts_voice_list* list, size_t index) {
  if (!list || index >= list->search_path.size()) return nullptr;
  return list->search_path[index].c_str();
}

size_t tts_voice_list_count(const tts_voice_list* list) { return list ? list->voices.size() : 0; }

int tts_voice_list_get(const tts_voice_list* list, size_t index, tts_voice_info* info) {
  try {
    if (!list || !info) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "list or info is NULL");
    if (info->struct_size < offsetof(tts_voice_info, name) + sizeof(const char*))
      return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "info->struct_size too small");
    if (index >= list->voices.size())
      return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT,
                  ("index " + std::to_string(index) + " is not below the count, " +
                   std::to_string(list->voices.size()))
                      .c_str());
    const auto& e = list->voices[index];
    TTS_SET_FIELD(info, tts_voice_info, name, e.name.c_str());
    TTS_SET_FIELD(info, tts_voice_info, language, e.language.c_str());
    TTS_SET_FIELD(info, tts_voice_info, sample_rate, e.sample_rate);
    TTS_SET_FIELD(info, tts_voice_info, licence, e.licence.c_str());
    TTS_SET_FIELD(info, tts_voice_info, source, e.source.c_str());
    TTS_SET_FIELD(info, tts_voice_info, path, e.path.c_str());
    TTS_SET_FIELD(info, tts_voice_info, size_bytes, e.size_bytes);
    TTS_SET_FIELD(info, tts_voice_info, languages, e.languages.c_str());
    TTS_SET_FIELD(info, tts_voice_info, speaker, e.speaker.c_str());
    TTS_SET_FIELD(info, tts_voice_info, sex, e.sex.c_str());
    if (!e.error.empty()) return fail(g_last_error, TTS_ERR_BAD_VOICE, e.error.c_str());
    return TTS_OK;
  } catch (...) {
    return fail_current(g_last_error);
  }
}

int tts_stream_create(const tts_voice* voice, tts_stream** out_stream) {
  try {
    if (!out_stream) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "out_stream is NULL");
    *out_stream = nullptr;
    if (!voice) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "voice is NULL");
    *out_stream = new tts_stream(voice->voice, voice->device);
    return TTS_OK;
  } catch (...) {
    return fail_current(g_last_error);
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
  if (!stream) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
  CallGuard guard(stream);
  if (!guard.entered()) return TTS_ERR_STATE;
  try {
    return start(stream, text, options);
  } catch (...) {
    return fail_current(stream->last_error);
  }
}

int tts_synthesize_next(tts_stream* stream, tts_chunk* chunk) {
  if (!stream) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
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
  if (!stream) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
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
  if (!stream) return fail(g_last_error, TTS_ERR_INVALID_ARGUMENT, "stream is NULL");
  try {
    stream->stream.cancel();
    return TTS_OK;
  } catch (...) {
    return TTS_ERR_INTERNAL;
  }
}

}  // extern "C"
