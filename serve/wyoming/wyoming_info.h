// What the Wyoming server says about itself: the `info` event answered to `describe`. Internal to
// tts_serve.
#pragma once

#include <string>

#include "tts/serve/speech_service.h"
#include "tts/serve/wyoming_protocol.h"

namespace tts::serve {

// `info`, answered to `describe`: one text-to-speech program whose voices are the served ones,
// with every field rhasspy/wyoming's Info.from_event needs.
wyoming::Event info_event(const SpeechService& service);

}  // namespace tts::serve
