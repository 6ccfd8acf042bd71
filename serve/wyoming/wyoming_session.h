// One connection of the Wyoming server: its events in order, the syntheses they ask for, and the
// events it answers with (see wyoming_server.h for the exchange). Internal to tts_serve.
#pragma once

#include <string>

#include "tcp_listener.h"
#include "tts/serve/speech_service.h"
#include "tts/serve/wyoming_server.h"

namespace tts::serve {

// What Wyoming's requests and errors are recorded under in the metrics.
inline constexpr const char* kWyomingProtocol = "wyoming";

// Serves `connection` until the peer closes it, its stream breaks, it idles past
// options.idle_timeout, or the listener stops. `info_bytes` is the `info` event that answers
// `describe`. Returns whether the connection should linger before closing (our last event was an
// error). Throws only what no event handler expects (never seen: the server counts it).
bool serve_wyoming(SpeechService& service, const WyomingOptions& options, TcpConnection& connection,
                   const std::string& info_bytes);

}  // namespace tts::serve
