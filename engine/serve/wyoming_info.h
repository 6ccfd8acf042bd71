// What the Wyoming server says about itself and how it matches languages: the `info` event
// answered to `describe`, and the language keys voice choice compares. Internal to tts_serve.
#pragma once

#include <string>

#include "tts/serve/speech_service.h"
#include "tts/serve/wyoming_protocol.h"

namespace tts::serve {

// A language tag compared as Home Assistant and piper write them ("en_US", "en-US") against ours
// (espeak-ng's "en-us"): lower case, '-' for '_'.
std::string language_key(std::string tag);

// `info`, answered to `describe`: one text-to-speech program whose voices are the served ones,
// with every field rhasspy/wyoming's Info.from_event needs.
wyoming::Event info_event(const SpeechService& service);

}  // namespace tts::serve
