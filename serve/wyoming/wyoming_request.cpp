#include "wyoming_request.h"

#include <stdexcept>

#include "tts/engine/voice_language.h"

namespace tts::serve::wyoming {

using nlohmann::json;

std::string string_field(const json& object, const char* name, const std::string& event,
                         const std::string& fallback) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_string())
    throw BadEvent(event + ": \"" + name + "\" is not a string (" + it->type_name() + ")");
  return it->get<std::string>();
}

namespace {

// The voice and the text format of `synthesize` and `synthesize-start`, checked in that order.
SpeechRequest voice_and_format(const json& data, const std::string& event,
                               const VoiceChooser& choose_voice) {
  SpeechRequest request;
  auto voice = data.find("voice");
  if (voice != data.end() && !voice->is_null()) {
    if (!voice->is_object())
      throw BadEvent(event + ": \"voice\" is not an object (" + voice->type_name() + ")");
    std::string name = string_field(*voice, "name", event + " voice");
    std::string language = string_field(*voice, "language", event + " voice");
    if (voice->contains("language") && (*voice)["language"].is_string())
      if (const auto problem = engine::language_tag_problem(language))
        throw BadEvent(event + ": voice language: " + *problem);
    string_field(*voice, "speaker", event + " voice");  // checked; our voices have one speaker
    try {
      // Refuses an unknown voice here, before any text of a stream is spoken.
      request.voice = choose_voice(name, language);
      request.language = language;
    } catch (const RequestError& e) {
      throw BadEvent(event + ": " + e.what());
    }
  }
  request.ssml = string_field(data, "text_format", event) == "ssml";
  return request;
}

}  // namespace

SpeechRequest speech_request(const Event& event, const VoiceChooser& choose_voice) {
  const std::string& type = event.type;
  if (type == "synthesize") {
    auto text = event.data.find("text");
    if (text == event.data.end() || text->is_null())
      throw BadEvent("synthesize: \"text\" is missing");
    SpeechRequest request = voice_and_format(event.data, type, choose_voice);
    request.text = string_field(event.data, "text", type);
    return request;
  }
  if (type == "synthesize-start") return voice_and_format(event.data, type, choose_voice);
  if (type == "synthesize-chunk") {
    SpeechRequest request;
    request.text = string_field(event.data, "text", type);
    return request;
  }
  throw std::invalid_argument("not a synthesis event: \"" + type + "\"");
}

}  // namespace tts::serve::wyoming
