// The body of OpenAI's `POST /v1/audio/speech`, checked field by field:
//   {"model": "tts-1", "input": "Hello.", "voice": "alloy", "response_format": "wav", "speed": 1.0}
// `input` is required (a string); `model` must be a string when present and is otherwise not
// used (every served voice answers to every model name); `voice` names a served voice (or one of
// OpenAI's, for the default); `response_format` is mp3 (OpenAI's default), opus, aac, flac, wav or
// pcm, plus ogg; `speed` is 0.25–4.0 (the speaking rate); `pitch`, not OpenAI's, is -24–24
// semitones (for voices that can shift their pitch). `instructions` is accepted and ignored;
// `stream_format` may only be "audio". Unknown fields are refused, so a typo is not silently lost.
#pragma once

#include <string>

#include "tts/serve/speech_request.h"

namespace tts::serve {

struct OpenAiSpeech {
  SpeechRequest request;
  std::string format = "mp3";
};

// Throws RequestError naming the field and the problem (for bodies that are not JSON, too).
OpenAiSpeech parse_openai_speech(const std::string& body);

// OpenAI's error object: {"error": {"message": …, "type": …, "param": null, "code": null}}.
std::string openai_error_json(const std::string& message, const std::string& type);

}  // namespace tts::serve
