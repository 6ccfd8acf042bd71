// The HTTP side of `tts serve`, on cpp-httplib (Debian libcpp-httplib-dev; see docs/serve.md for
// why): OpenAI's speech API, streamed as it is made, plus voices, models, health and metrics.
//
//   POST /v1/audio/speech   audio, chunked (the first bytes leave with the first audio)
//   GET  /v1/audio/voices   {"voices": [{"id", "name", "language", "sample_rate", …}]}
//   GET  /v1/models         OpenAI's model list: tts-1, tts-1-hd and every served voice
//   GET  /health            {"status": "ok", …}; 503 while shutting down
//   GET  /metrics           Prometheus text (metrics.h)
//   GET  /                  a page to try the voices in a browser (web_page.h), without the key
//
// Errors are OpenAI's JSON error object with 400 (bad request), 401 (API key; with
// WWW-Authenticate), 404, 405 (with Allow), 408 (the request did not arrive in time), 413 (body
// too large), 415 (a form, not JSON), 431 (headers too large), 503 (busy, stopping or too many
// connections; with Retry-After) or 500. Connections are held by a front of their own
// (serve/http/http_connections.h), so that idle and slow clients hold no worker.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "tts/serve/speech_service.h"
#include "tts/serve/studio.h"

namespace tts::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 5500;      // 0: any free port (see HttpServer::port())
  std::string api_key;  // when set, every request but /health needs "Authorization: Bearer KEY"
  std::size_t max_body_bytes = 64 * 1024;    // whatever the Content-Type
  std::size_t max_header_bytes = 16 * 1024;  // the request line and headers together
  // A whole request (line, headers and body) must arrive within this of its first byte (of the
  // connection's opening, for a connection's first request), or it gets 408.
  std::chrono::milliseconds read_timeout{10'000};
  std::chrono::milliseconds write_timeout{10'000};      // a client that stops reading the audio
  std::chrono::milliseconds keep_alive_timeout{5'000};  // an idle connection between requests
  int keep_alive_max = 100;                             // requests on one connection
  // Connections open at once. Beyond, a new one closes the one that has waited longest for its
  // request; when every one has a request being served, the new one gets 503.
  int max_connections = 512;
  int connection_threads =
      32;  // speech requests served at once (the synthesis bound is Admission's)
  // The studio (studio.h) when studio.dir is set: its routes under /v1/studio, its takes allowed
  // past max_body_bytes up to studio.max_take_bytes().
  StudioOptions studio;
};

class HttpServer {
 public:
  HttpServer(SpeechService& service, HttpOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket; throws std::runtime_error naming the address when it cannot.
  void bind();
  int port() const { return port_; }
  // Serves until stop(); returns after the connections have ended.
  void run();
  // Stops accepting; open streams end (they are cancelled by SpeechService::shutdown first when
  // the caller wants them finished). Safe from any thread.
  void stop();
  // /health answers 503 from now on (the server is draining).
  void set_draining() { draining_ = true; }

 private:
  struct Impl;  // cpp-httplib's server, fed whole requests by the connection front
  void routes();
  SpeechService& service_;
  HttpOptions options_;
  std::unique_ptr<Impl> server_;
  std::unique_ptr<Studio> studio_;
  int port_ = 0;
  std::atomic<bool> draining_{false};
};

}  // namespace tts::serve
