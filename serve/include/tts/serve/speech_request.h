// What every protocol of `tts serve` asks the engine for, and the two ways a request fails before
// any audio: the protocols' parsers (openai_speech.h, wyoming_protocol.h) need only this header.
#pragma once

#include <stdexcept>
#include <string>

namespace tts::serve {

// The request is wrong (HTTP 400, Wyoming `error`); the message says what and where.
class RequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every worker busy and the queue full, or the server shutting down (HTTP 503 with Retry-After).
class BusyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SpeechRequest {
  std::string text;
  std::string voice;  // a served voice's name; empty for the first (default) one
  // The text's language, a BCP 47 tag (Wyoming's voice.language, the HTTP body's "language"):
  // used when the voice speaks it (SynthesisOptions::language), else the voice's own is.
  std::string language;
  bool ssml = false;
  float rate = 1.0f;
  float pitch_semitones = 0.0f;
  float volume = 1.0f;
};

}  // namespace tts::serve
