// `tts serve`'s HTTP side in process for tests: a SpeechService and an HttpServer on a free port
// of localhost, run() on its own thread; and raw sockets for what an HTTP client library would not
// do (hang up mid-stream, send half a request, send a method it does not know).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tts/engine/voice.h"
#include "tts/serve/http_server.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::testing_support {

class ServedHttp {
 public:
  ServedHttp(std::shared_ptr<const engine::Voice> voice, serve::ServiceOptions service = {},
             serve::HttpOptions http = {})
      : service_({{"random", std::move(voice)}}, service), http_(service_, (http.port = 0, http)) {
    http_.bind();
    thread_ = std::thread([this] { http_.run(); });
  }
  ~ServedHttp() {
    service_.shutdown(std::chrono::steady_clock::now());
    http_.stop();
    thread_.join();
  }
  // A client that gives up after `timeout_s` seconds of silence.
  httplib::Client client(int timeout_s = 60) {
    httplib::Client c("127.0.0.1", http_.port());
    c.set_read_timeout(timeout_s);
    c.set_connection_timeout(timeout_s);
    return c;
  }
  int port() const { return http_.port(); }
  serve::SpeechService& service() { return service_; }
  serve::HttpServer& http() { return http_; }

 private:
  serve::SpeechService service_;
  serve::HttpServer http_;
  std::thread thread_;
};

// A plain TCP connection to `port` on localhost; -1 when it cannot connect.
inline int connect_raw(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  ::close(fd);
  return -1;
}

// What `fd` receives until the peer closes or `limit` passes.
inline std::string read_until_closed(int fd, std::chrono::milliseconds limit) {
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return got;
    char buffer[4096];
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return got;
    got.append(buffer, static_cast<std::size_t>(n));
  }
}

// Sends `request` on a new connection and returns all that comes back within `limit`.
inline std::string exchange_raw(int port, const std::string& request,
                                std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  int fd = connect_raw(port);
  if (fd < 0) return {};
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response = read_until_closed(fd, limit);
  ::close(fd);
  return response;
}

// The status code of a raw response ("HTTP/1.1 405 …"); 0 when there is none.
inline int status_of(const std::string& response) {
  if (response.compare(0, 9, "HTTP/1.1 ") != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

// A header's value in a raw response's head (its name as sent); empty when absent.
inline std::string header_of(const std::string& response, const std::string& name) {
  std::string head = response.substr(0, response.find("\r\n\r\n"));
  std::size_t at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return {};
  at += name.size() + 4;
  return head.substr(at, head.find("\r\n", at) - at);
}

}  // namespace tts::testing_support
