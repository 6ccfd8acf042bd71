#include "tts/serve/openai_speech.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "tts/engine/voice_language.h"

namespace tts::serve {

using nlohmann::json;

OpenAiSpeech parse_openai_speech(const std::string& body) {
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    throw RequestError(std::string("the body is not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw RequestError("the body must be a JSON object");
  OpenAiSpeech out;
  auto string_field = [&](const char* name, std::string& to) {
    auto it = doc.find(name);
    if (it == doc.end() || it->is_null()) return false;
    if (!it->is_string()) throw RequestError(std::string(name) + ": must be a string");
    to = it->get<std::string>();
    return true;
  };
  for (const auto& [key, value] : doc.items()) {
    static const char* known[] = {"model",           "input", "voice",
                                  "response_format", "speed", "instructions",
                                  "stream_format",   "pitch", "language"};
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) throw RequestError("unknown field \"" + key + "\"");
  }
  std::string ignored;
  string_field("model", ignored);
  string_field("instructions", ignored);
  if (!string_field("input", out.request.text)) throw RequestError("input: required");
  // Absent: the default voice. Empty is a mistake (an unset variable, say), not a choice of it.
  if (string_field("voice", out.request.voice) && out.request.voice.empty())
    throw RequestError("voice: empty (name a voice, or leave the field out for the default one)");
  // Not OpenAI's: the text's language. Present and empty (or holding a NUL) is a mistake, refused
  // with the words the command, the C API and Python use.
  if (string_field("language", out.request.language))
    if (const auto problem = engine::language_tag_problem(out.request.language))
      throw RequestError("language: " + *problem);
  string_field("response_format", out.format);
  std::string stream_format;
  if (string_field("stream_format", stream_format) && stream_format != "audio")
    throw RequestError("stream_format: only \"audio\" is served (not \"" + stream_format + "\")");
  if (auto it = doc.find("speed"); it != doc.end() && !it->is_null()) {
    if (!it->is_number()) throw RequestError("speed: must be a number");
    double speed = it->get<double>();
    if (!std::isfinite(speed) || speed < 0.25 || speed > 4.0)
      throw RequestError("speed: must be within 0.25 and 4.0");
    out.request.rate = static_cast<float>(speed);
  }
  // Not OpenAI's: semitones up or down, as `tts say --pitch` (the voice must be able to shift).
  if (auto it = doc.find("pitch"); it != doc.end() && !it->is_null()) {
    if (!it->is_number()) throw RequestError("pitch: must be a number (semitones)");
    double pitch = it->get<double>();
    if (!std::isfinite(pitch) || pitch < -24.0 || pitch > 24.0)
      throw RequestError("pitch: must be within -24 and 24 semitones");
    out.request.pitch_semitones = static_cast<float>(pitch);
  }
  return out;
}

std::string openai_error_json(const std::string& message, const std::string& type) {
  json error = {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}};
  // Messages may quote the client's bytes; replace what is not UTF-8 rather than fail to answer.
  return json{{"error", error}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tts::serve
