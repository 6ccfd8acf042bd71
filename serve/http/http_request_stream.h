// One whole request, already read by the connection front (http_connections.h), as cpp-httplib's
// server reads and answers it: reads come from the request's bytes and end with them (so a
// handler never waits on the client), writes go to the connection's socket, each waiting at most
// the write timeout for room. Internal to tts_serve.
#pragma once

#include <chrono>
#include <string_view>

// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve::http {

class RequestStream : public httplib::Stream {
 public:
  RequestStream(int fd, std::string_view request, std::chrono::milliseconds write_timeout)
      : fd_(fd), request_(request), write_timeout_(write_timeout) {}

  bool is_readable() const override { return at_ < request_.size(); }
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  // cpp-httplib uses the descriptor only to refuse those past select()'s FD_SETSIZE, and this
  // stream never selects: none to give.
  socket_t socket() const override { return INVALID_SOCKET; }

 private:
  int fd_;
  std::string_view request_;
  std::size_t at_ = 0;
  std::chrono::milliseconds write_timeout_;
};

}  // namespace tts::serve::http
