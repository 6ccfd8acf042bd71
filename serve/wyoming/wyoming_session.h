// One connection of the Wyoming server: its events in order, the syntheses they ask for, and the
// events it answers with (see wyoming_server.h for the exchange). The connection front
// (wyoming_connections.h) reads and frames the events and hands them over here, on a worker
// thread, a batch at a time. Internal to tts_serve.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tts/serve/speech_service.h"
#include "tts/serve/wyoming_protocol.h"
#include "tts/serve/wyoming_server.h"

namespace tts::serve {

// What Wyoming's requests and errors are recorded under in the metrics.
inline constexpr const char* kWyomingProtocol = "wyoming";

class WyomingSession {
 public:
  // What the connection does after a batch of events.
  enum class After {
    kContinue,  // wait for the next events
    kClose,     // close at once (the peer has gone)
    kLinger,    // close once the peer has read our last event, an error
  };

  // Sends its answers on `fd`, which it neither reads nor closes; `describe` is answered with the
  // voices served at that moment.
  WyomingSession(SpeechService& service, const WyomingOptions& options, int fd);
  ~WyomingSession();
  WyomingSession(const WyomingSession&) = delete;
  WyomingSession& operator=(const WyomingSession&) = delete;

  // Handles `events` in order (the first checked for the API key). Never throws but
  // std::bad_alloc.
  After handle(const std::vector<wyoming::Event>& events);
  // The stream cannot be read past the events handled: sends `bad_frame` with `message`.
  After refuse_frame(const std::string& message);
  // Cancels the synthesis running, and any the session would start: the server is stopping. Its
  // stream ends with an `error` (code "cancelled"). Safe from any thread.
  void interrupt();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tts::serve
