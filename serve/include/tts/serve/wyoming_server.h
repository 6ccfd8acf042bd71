// The Wyoming side of `tts serve` (the protocol Home Assistant speaks to piper and other local
// voices): a TCP server whose connections exchange Wyoming events (wyoming_protocol.h) and run
// their syntheses through the shared SpeechService.
//
//   describe                                   → info (our voices, languages,
//                                                 supports_synthesize_streaming)
//   synthesize {text, voice?}                  → audio-start, audio-chunk…, audio-stop
//   synthesize-start / synthesize-chunk… /
//   synthesize-stop                            → audio-start, audio-chunk…, audio-stop,
//                                                 synthesize-stopped
//   anything malformed or refused              → error {text, code}
//
// A stream cut short (the server stopping, a time limit, a synthesis error) ends with `error`, not
// `audio-stop`, so that a client can tell it from a complete one.
//
// With an API key, the first event's data carries {"api_key": KEY} (any event type).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tts/serve/speech_service.h"

namespace tts::serve {

struct WyomingOptions {
  std::string host = "127.0.0.1";
  int port = 10200;  // 0: any free port (see WyomingServer::port())
  // Connections open at once. Beyond, a new one closes the one that has waited longest for its
  // next event; when every one has events being handled, the new one gets `error` ("busy").
  int max_connections = 256;
  int connection_threads = 32;               // connections whose events are handled at once
  std::size_t max_header_bytes = 64 * 1024;  // one JSON header line
  std::size_t max_data_bytes = 64 * 1024;    // an event's data section
  std::size_t max_payload_bytes = 1 << 20;   // an event's payload
  // A connection's first whole event must arrive within this of its opening, and each next one
  // within idle_timeout of the one before, or it gets `error` ("timeout") and is closed.
  std::chrono::seconds first_event_timeout{10};
  std::chrono::seconds idle_timeout{60};
  // When set, a connection's first event must carry it as "api_key" in its data; otherwise the
  // connection gets an `error` (code "unauthorized") and is closed before any work.
  std::string api_key;
};

class WyomingServer {
 public:
  WyomingServer(SpeechService& service, WyomingOptions options);
  ~WyomingServer();  // stop()s
  WyomingServer(const WyomingServer&) = delete;
  WyomingServer& operator=(const WyomingServer&) = delete;

  // Binds and listens; throws std::runtime_error naming the address when it cannot.
  void bind();
  int port() const { return port_; }
  // Accepts connections until stop(). They are served by a connection front of their own
  // (serve/wyoming/wyoming_connections.h), so that idle and slow clients hold no thread.
  void run();
  // Stops accepting and closes every connection. Syntheses still running are cancelled, and their
  // streams end with an `error` (code "cancelled"), never an `audio-stop`. Safe from any thread,
  // and more than once.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace tts::serve
