#include "tts/serve/wyoming_server.h"

#include <stdexcept>

#include "tcp_listener.h"
#include "tts/serve/wyoming_protocol.h"
#include "wyoming_connections.h"
#include "wyoming_session.h"

namespace tts::serve {

namespace {

WyomingOptions checked(WyomingOptions o) {
  if (o.max_connections < 1) throw std::invalid_argument("max connections must be at least 1");
  if (o.connection_threads < 1)
    throw std::invalid_argument("connection threads must be at least 1");
  if (o.max_header_bytes < 64) throw std::invalid_argument("max header bytes must be at least 64");
  if (o.idle_timeout.count() < 1) throw std::invalid_argument("idle timeout must be positive");
  if (o.first_event_timeout.count() < 1)
    throw std::invalid_argument("first event timeout must be positive");
  return o;
}

WyomingConnectionLimits limits_of(const WyomingOptions& o) {
  WyomingConnectionLimits limits;
  limits.max_connections = o.max_connections;
  limits.threads = o.connection_threads;
  limits.first_event_timeout = o.first_event_timeout;
  limits.idle_timeout = o.idle_timeout;
  limits.frame = {o.max_header_bytes, o.max_data_bytes, o.max_payload_bytes};
  return limits;
}

}  // namespace

struct WyomingServer::Impl {
  Impl(SpeechService& s, WyomingOptions o)
      : service(s),
        options(checked(std::move(o))),
        connections(
            limits_of(options),
            [this](int fd) { return std::make_unique<WyomingSession>(service, options, fd); },
            [this](const char* reason) { service.metrics().error(kWyomingProtocol, reason); }),
        listener(options.host, options.port, options.idle_timeout,
                 [this](int fd) { connections.adopt(fd); }) {}

  SpeechService& service;
  WyomingOptions options;
  WyomingConnections connections;  // after the members its sessions use
  TcpListener listener;            // last: it hands connections to the front
};

WyomingServer::WyomingServer(SpeechService& service, WyomingOptions options)
    : impl_(std::make_unique<Impl>(service, std::move(options))) {}

WyomingServer::~WyomingServer() { stop(); }

void WyomingServer::bind() {
  impl_->listener.bind();
  port_ = impl_->listener.port();
}

void WyomingServer::run() {
  // Checked here as well, so that the message names the class the caller holds.
  if (!impl_->listener.bound()) throw std::logic_error("WyomingServer::run before bind");
  impl_->listener.run();
}

void WyomingServer::stop() {
  impl_->listener.stop();
  impl_->connections.stop();
}

}  // namespace tts::serve
