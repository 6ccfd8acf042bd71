// The answer to POST /v1/audio/speech: OpenAI's request body read (openai_speech.h), the
// synthesis started through the SpeechService, and its audio streamed, chunked, as it is made.
// Internal to tts_serve.
#pragma once

#include <string>

#include "tts/serve/speech_service.h"

namespace httplib {
struct Response;
}

namespace tts::serve::http {

// Fills `res` with the stream, or with an error: 400 (the message names the field), 503 (busy or
// stopping, with Retry-After) or 500.
void answer_speech(SpeechService& service, const std::string& body, httplib::Response& res);

// An OpenAI error object with `status`.
void send_error(httplib::Response& res, int status, const std::string& message,
                const std::string& type);

}  // namespace tts::serve::http
