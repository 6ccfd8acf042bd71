// What the C API's files share (c_api.cpp: errors, voices and the voice list; c_api_stream.cpp:
// streams): the handle behind tts_voice, the error reporting every entry point ends in, and the
// rules for reading and writing the versioned structs of tts.h. Internal to libtts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "tts/build_info.h"
#include "tts/engine/voice.h"
#include "tts/kernels/device.h"
#include "tts/tts.h"

namespace tts::c_api {

// What a tts_voice_info points into: a loaded voice's, or one entry of a tts_voice_list.
struct VoiceSummary {
  std::string name, language, languages, licence, source, path, speaker, sex;
  int sample_rate = 0;
  std::uint64_t size_bytes = 0;
};

}  // namespace tts::c_api

struct tts_voice {
  std::shared_ptr<const tts::engine::Voice> voice;
  tts::c_api::VoiceSummary summary;
  // Where its streams' vocoders sample (tts_voice_options.device, checked when loaded).
  tts::kernels::Device device = tts::kernels::Device::kCpu;
};

namespace tts::c_api {

// The calling thread's last error message, for the entry points without a stream.
std::string& thread_last_error();

// Sets `where` to the message and returns the status; never throws.
int fail(std::string& where, int status, const char* message);
int fail(std::string& where, int status, const std::string& message);

// For a catch (...): the exception being handled as a status code, its message in `where`.
int fail_current(std::string& where);

// Everything a tts_voice_info shows of voice.json, except its name and path.
void summarise(const tts::engine::VoiceInfo& info, VoiceSummary& out);

// Fills the fields of `info` that its struct_size covers; the strings stay owned by `summary`.
void write_voice_info(const VoiceSummary& summary, tts_voice_info* info);

// The smallest tts_voice_info a caller may pass: one holding at least the name.
constexpr std::size_t kMinVoiceInfoSize = offsetof(tts_voice_info, name) + sizeof(const char*);

// Copies the defaults in `full` into the caller's `size` bytes: never past them, the bytes after
// the fields this library knows cleared, struct_size set to the caller's size.
template <typename T>
void write_defaults(const T& full, T* out, std::size_t size) {
  if (!out || size < sizeof(std::size_t)) return;
  std::memset(out, 0, size);
  std::memcpy(out, &full, std::min(size, sizeof(T)));
  out->struct_size = size;
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

}  // namespace tts::c_api

// Sets a field of an output struct only when the caller's struct_size covers it.
#define TTS_SET_FIELD(ptr, type, field, value)                              \
  do {                                                                      \
    if (offsetof(type, field) + sizeof((ptr)->field) <= (ptr)->struct_size) \
      (ptr)->field = (value);                                               \
  } while (0)
