// The C API (tts.h) over the C++ engine: the library's version and errors, voices and the voice
// list (streams are in c_api_stream.cpp). Every entry point catches everything: no exception
// crosses the C boundary.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "c_api_support.h"
#include "tts/build_info.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/device.h"
#include "tts/tts.h"

static_assert(TTS_VERSION_MAJOR == 0 && TTS_VERSION_MINOR == 1 && TTS_VERSION_PATCH == 0,
              "update the TTS_VERSION_* macros of tts.h with the project version");

using tts::c_api::fail;
using tts::c_api::fail_current;
using tts::c_api::thread_last_error;
using tts::engine::Voice;

struct tts_voice_list {
  struct Entry {
    tts::c_api::VoiceSummary summary;
    std::string error;  // why voice.json could not be read; "" when it could
  };
  std::vector<std::string> search_path;
  std::vector<Entry> voices;
};

namespace {

tts_voice_options voice_option_defaults() {
  tts_voice_options o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.device = TTS_DEVICE_CPU;
  return o;
}

// tts_voice_options's size in the first version of this header (1.0): the end of its last field
// then. Appending a field leaves it as it is.
constexpr std::size_t kVoiceOptionsV1 = offsetof(tts_voice_options, device) + sizeof(int);

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

const char* tts_last_error(void) { return thread_last_error().c_str(); }

void tts_default_voice_options_sized(tts_voice_options* options, size_t size) {
  tts::c_api::write_defaults(voice_option_defaults(), options, size);
}

// The first version's entry point (in parentheses: the header's macro of the same name).
void(tts_default_voice_options)(tts_voice_options* options) {
  tts_default_voice_options_sized(options, kVoiceOptionsV1);
}

int tts_voice_load(const char* name_or_path, const tts_voice_options* options,
                   tts_voice** out_voice) {
  try {
    if (!out_voice) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "out_voice is NULL");
    *out_voice = nullptr;
    if (!name_or_path)
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "voice name is NULL");
    tts_voice_options o;
    if (!tts::c_api::read_options(options, o, voice_option_defaults, kVoiceOptionsV1,
                                  "tts_voice_options", thread_last_error()))
      return TTS_ERR_INVALID_ARGUMENT;
    const std::optional<tts::kernels::Device> device = device_of(o.device);
    if (!device)
      return fail(
          thread_last_error(), TTS_ERR_INVALID_ARGUMENT,
          "unknown device " + std::to_string(o.device) + " (TTS_DEVICE_CPU or TTS_DEVICE_CUDA)");
    auto handle = std::make_unique<tts_voice>();
    handle->device = *device;
    const auto folder = tts::engine::resolve_voice(name_or_path);
    handle->voice = Voice::load(folder);
    handle->summary.name = handle->voice->info().name;
    handle->summary.path = folder.string();
    tts::c_api::summarise(handle->voice->info(), handle->summary);
    if (*device == tts::kernels::Device::kCuda) {
      // The vocoder's shape first: a voice the GPU sampler cannot take is refused the same way on
      // every machine, before CUDA is touched, and never accepted only to fail at synthesis.
      const std::string refusal = handle->voice->samplers().refusal(*device);
      if (!refusal.empty())
        return fail(thread_last_error(), TTS_ERR_UNSUPPORTED,
                    "TTS_DEVICE_CUDA cannot sample this voice: " + refusal +
                        " (TTS_DEVICE_CPU samples every voice)");
      try {  // the CUDA library is loaded here, and only here, when asked for
        tts::kernels::require_device(*device);
      } catch (const std::exception& e) {
        return fail(thread_last_error(), TTS_ERR_UNSUPPORTED,
                    std::string("TTS_DEVICE_CUDA is unavailable: ") + e.what() +
                        " (TTS_DEVICE_CPU works everywhere)");
      }
      try {  // uploaded now, for all its streams: what this device cannot hold fails here
        handle->voice->samplers().prepare(*device);
      } catch (const std::invalid_argument& e) {
        return fail(thread_last_error(), TTS_ERR_UNSUPPORTED,
                    std::string("TTS_DEVICE_CUDA cannot sample this voice on this device: ") +
                        e.what() + " (TTS_DEVICE_CPU samples every voice)");
      }
    }
    *out_voice = handle.release();
    return TTS_OK;
  } catch (...) {
    return fail_current(thread_last_error());
  }
}

void tts_voice_free(tts_voice* voice) { delete voice; }

int tts_voice_get_info(const tts_voice* voice, tts_voice_info* info) {
  try {
    if (!voice || !info)
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "voice or info is NULL");
    if (info->struct_size < tts::c_api::kMinVoiceInfoSize)
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "info->struct_size too small");
    tts::c_api::write_voice_info(voice->summary, info);
    return TTS_OK;
  } catch (...) {
    return fail_current(thread_last_error());
  }
}

int tts_voice_list_create(tts_voice_list** out_list) {
  try {
    if (!out_list) return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "out_list is NULL");
    *out_list = nullptr;
    auto list = std::make_unique<tts_voice_list>();
    for (const auto& folder : tts::engine::voice_search_path())
      list->search_path.push_back(folder.string());
    for (const auto& folder : tts::engine::list_voices()) {
      tts_voice_list::Entry e;
      e.summary.name = folder.filename().string();
      e.summary.path = folder.string();
      try {
        tts::c_api::summarise(tts::engine::read_voice_info(folder), e.summary);
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
    return fail_current(thread_last_error());
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
    if (!list || !info)
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "list or info is NULL");
    if (info->struct_size < tts::c_api::kMinVoiceInfoSize)
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT, "info->struct_size too small");
    if (index >= list->voices.size())
      return fail(thread_last_error(), TTS_ERR_INVALID_ARGUMENT,
                  ("index " + std::to_string(index) + " is not below the count, " +
                   std::to_string(list->voices.size()))
                      .c_str());
    const auto& e = list->voices[index];
    tts::c_api::write_voice_info(e.summary, info);
    if (!e.error.empty()) return fail(thread_last_error(), TTS_ERR_BAD_VOICE, e.error.c_str());
    return TTS_OK;
  } catch (...) {
    return fail_current(thread_last_error());
  }
}

}  // extern "C"
