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
  int port = 10200;          // 0: any free port (see WyomingServer::port())
  int max_connections = 32;  // beyond it a connection gets an `error` event and is closed
  std::size_t max_header_bytes = 64 * 1024;  // one JSON header line
  std::size_t max_data_bytes = 64 * 1024;    // an event's data section
  std::size_t max_payload_bytes = 1 << 20;   // an event's payload
  std::chrono::seconds idle_timeout{60};     // no complete event for this long closes
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
  // Accepts and serves connections (each on its own thread) until stop(); returns after every
  // connection thread has ended.
  void run();
  // Stops accepting and closes every connection (their syntheses are cancelled). Safe from any
  // thread, and more than once.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace tts::serve
