// What a Wyoming request event asks the speech service for: `synthesize`, `synthesize-start` and
// `synthesize-chunk` read into a SpeechRequest, or refused with an error that names the event and
// the field. No sockets and no state: the session (wyoming_session.h) decides which events it
// reads when, and the fuzz target fuzz/wyoming_request_fuzz.cpp feeds it any data. Internal to
// tts_serve.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tts/serve/speech_request.h"
#include "tts/serve/wyoming_protocol.h"

namespace tts::serve::wyoming {

// A request event refused before it reaches SpeechService::start (which records its own
// refusals): a field of the wrong type, a voice not served, a chunk outside a stream. The session
// counts these in the metrics itself.
class BadEvent : public RequestError {
 public:
  using RequestError::RequestError;
};

// The served voice that a `voice` object's name and language choose (the server passes
// SpeechService::voice(name, language)); throws RequestError for a name that is not served.
using VoiceChooser =
    std::function<std::string(const std::string& name, const std::string& language)>;

// The request of `synthesize` {text, voice?: {name?, language?, speaker?}, text_format?}; of
// `synthesize-start` (its voice and format; the text comes in the stream's chunks); of
// `synthesize-chunk` (its text only). A `text_format` of "ssml" asks for SSML; any other is read
// as plain text, as the protocol lets servers do with formats they do not know. The speaker is
// checked and not used: our voices have one each. `choose_voice` is called only when a `voice`
// object is given. Throws BadEvent; std::invalid_argument for any other event type.
SpeechRequest speech_request(const Event& event, const VoiceChooser& choose_voice);

// A string field of an event's data: absent or null gives `fallback`; another type is refused with
// a BadEvent naming `event` and the field.
std::string string_field(const nlohmann::json& object, const char* name, const std::string& event,
                         const std::string& fallback = "");

}  // namespace tts::serve::wyoming
