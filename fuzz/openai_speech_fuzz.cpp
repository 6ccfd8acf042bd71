// libFuzzer target: the body of POST /v1/audio/speech (serve/openai_speech.cpp). Any bytes must
// either parse or throw RequestError; nothing else may escape, crash or leak.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tts/serve/openai_speech.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  try {
    auto speech = tts::serve::parse_openai_speech(body);
    // What parsed must satisfy the documented ranges.
    if (speech.request.rate < 0.25f || speech.request.rate > 4.0f) __builtin_trap();
    if (!(std::fabs(speech.request.pitch_semitones) <= 24.0f)) __builtin_trap();
  } catch (const tts::serve::RequestError& e) {
    (void)tts::serve::openai_error_json(e.what(), "invalid_request_error");
  }
  return 0;
}
