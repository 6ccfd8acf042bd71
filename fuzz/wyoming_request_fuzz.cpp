// libFuzzer target: Wyoming's request events read into speech requests (serve/wyoming_request.cpp).
// The first byte picks the event (synthesize, synthesize-start or synthesize-chunk); the rest is
// its data, as JSON (any value, though the framing only ever gives objects). The event must give a
// request that holds what the data said, or throw BadEvent whose message starts with the event's
// type; nothing else may escape, crash or leak.
#include <cstddef>
#include <cstdint>
#include <string>

#include "../serve/wyoming/wyoming_request.h"
#include "fuzz_support.h"

using nlohmann::json;
using tts::serve::RequestError;
using tts::serve::SpeechRequest;
using tts::serve::wyoming::BadEvent;
using tts::serve::wyoming::Event;

namespace {

// The string `data[name]` holds, "" when it is absent or null; false when it is another type.
bool string_of(const json& data, const char* name, std::string& out) {
  out.clear();
  if (!data.is_object()) return true;
  auto it = data.find(name);
  if (it == data.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kTypes[] = {"synthesize", "synthesize-start", "synthesize-chunk"};
  Event event;
  event.type = kTypes[data[0] % 3];
  event.data = json::parse(data + 1, data + size, nullptr, /*allow_exceptions=*/false);
  if (event.data.is_discarded()) return 0;

  // Two voices, "default" (en-us) and "other" (fr-fr), and OpenAI's "alloy" for the default.
  int calls = 0;
  std::string chosen;
  auto choose = [&](const std::string& name, const std::string& language) {
    ++calls;
    if (name == "default" || name == "other") return chosen = name;
    if (name == "alloy") return chosen = "default";
    if (!name.empty())
      throw RequestError("voice \"" + name + "\" is not served here (voices: default, other)");
    return chosen = language.rfind("fr", 0) == 0 ? "other" : "default";
  };

  SpeechRequest request;
  try {
    request = tts::serve::wyoming::speech_request(event, choose);
  } catch (const BadEvent& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).rfind(event.type, 0) == 0);
    (void)tts::serve::wyoming::to_bytes(tts::serve::wyoming::error_event(e.what(), "bad_request"));
    return 0;
  }

  // What parsed holds what the data said, and nothing it did not.
  std::string text, format;
  TTS_FUZZ_CHECK(string_of(event.data, "text", text) || event.type == "synthesize-start");
  TTS_FUZZ_CHECK(request.text == (event.type == "synthesize-start" ? "" : text));
  if (event.type == "synthesize")  // its text is required
    TTS_FUZZ_CHECK(event.data.is_object() && event.data.contains("text") &&
                   event.data.at("text").is_string());
  TTS_FUZZ_CHECK(calls <= 1);
  TTS_FUZZ_CHECK(request.voice == (calls ? chosen : ""));
  if (event.type == "synthesize-chunk") {
    TTS_FUZZ_CHECK(calls == 0 && !request.ssml);
  } else {
    TTS_FUZZ_CHECK(string_of(event.data, "text_format", format));
    TTS_FUZZ_CHECK(request.ssml == (format == "ssml"));
  }
  TTS_FUZZ_CHECK(request.rate == 1.0f && request.pitch_semitones == 0.0f && request.volume == 1.0f);
  return 0;
}
