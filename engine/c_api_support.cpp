// The C API's error reporting and voice info (c_api_support.h).
#include "c_api_support.h"

#include <new>
#include <stdexcept>

#include "tts/engine/pipeline.h"

namespace tts::c_api {
namespace {

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

}  // namespace

std::string& thread_last_error() {
  thread_local std::string message;
  return message;
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

void summarise(const tts::engine::VoiceInfo& info, VoiceSummary& out) {
  out.language = info.language;
  out.languages = info.languages_text();
  out.speaker = info.speaker;
  out.sex = info.sex;
  out.licence = info.licence;
  out.source = info.source;
  out.sample_rate = info.sample_rate;
  out.size_bytes = info.total_bytes();
}

void write_voice_info(const VoiceSummary& s, tts_voice_info* info) {
  TTS_SET_FIELD(info, tts_voice_info, name, s.name.c_str());
  TTS_SET_FIELD(info, tts_voice_info, language, s.language.c_str());
  TTS_SET_FIELD(info, tts_voice_info, sample_rate, s.sample_rate);
  TTS_SET_FIELD(info, tts_voice_info, licence, s.licence.c_str());
  TTS_SET_FIELD(info, tts_voice_info, source, s.source.c_str());
  TTS_SET_FIELD(info, tts_voice_info, path, s.path.c_str());
  TTS_SET_FIELD(info, tts_voice_info, size_bytes, s.size_bytes);
  TTS_SET_FIELD(info, tts_voice_info, languages, s.languages.c_str());
  TTS_SET_FIELD(info, tts_voice_info, speaker, s.speaker.c_str());
  TTS_SET_FIELD(info, tts_voice_info, sex, s.sex.c_str());
}

}  // namespace tts::c_api
