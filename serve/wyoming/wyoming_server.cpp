#include "tts/serve/wyoming_server.h"

#include <sys/socket.h>

#include <stdexcept>

#include "tcp_listener.h"
#include "tts/serve/wyoming_protocol.h"
#include "wyoming_info.h"
#include "wyoming_session.h"

namespace tts::serve {

namespace {

WyomingOptions checked(WyomingOptions o) {
  if (o.max_connections < 1) throw std::invalid_argument("max connections must be at least 1");
  if (o.max_header_bytes < 64) throw std::invalid_argument("max header bytes must be at least 64");
  if (o.idle_timeout.count() < 1) throw std::invalid_argument("idle timeout must be positive");
  return o;
}

TcpListenerOptions listener_options(const WyomingOptions& o) {
  TcpListenerOptions listener;
  listener.host = o.host;
  listener.port = o.port;
  listener.max_connections = o.max_connections;
  listener.send_timeout = o.idle_timeout;
  return listener;
}

}  // namespace

struct WyomingServer::Impl {
  Impl(SpeechService& s, WyomingOptions o)
      : service(s),
        options(checked(std::move(o))),
        info_bytes(wyoming::to_bytes(info_event(service))),
        listener(
            listener_options(options), [this](TcpConnection& c) { return serve(c); },
            [this] { service.metrics().error(kWyomingProtocol, "connections"); }) {}
  bool serve(TcpConnection& connection);

  SpeechService& service;
  WyomingOptions options;
  std::string info_bytes;  // the `info` event, built once: the voices do not change
  TcpListener listener;    // last: its connections' threads use the members above
};

bool WyomingServer::Impl::serve(TcpConnection& connection) {
  try {
    if (connection.over_limit()) {
      std::string bytes = wyoming::to_bytes(
          wyoming::error_event("the server has " + std::to_string(options.max_connections) +
                                   " connections open, its limit: try again later",
                               "busy"));
      ::send(connection.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      return true;
    }
    return serve_wyoming(service, options, connection, info_bytes);
  } catch (const std::exception&) {
    service.metrics().error(kWyomingProtocol, "internal");  // never seen; must not crash us
  }
  return false;
}

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

void WyomingServer::stop() { impl_->listener.stop(); }

}  // namespace tts::serve
