// The listening sockets of `tts serve`, and the accepting loop of its Wyoming side.
//
// open_listening_socket binds without SO_REUSEPORT (which would let a second server bind the same
// port and the kernel split the connections between the two), so that a port another process
// listens on is refused with a message that says so. TcpListener accepts on run()'s thread and
// hands each connection to its `adopt` callback (the Wyoming connection front), which owns it
// from then on. Internal to tts_serve.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

namespace tts::serve {

struct ListeningSocket {
  int fd = -1;
  int port = 0;  // the port bound (the one chosen, for port 0)
};

// Binds `host`:`port` (0: any free port) and listens, with close-on-exec and SO_REUSEADDR only.
// Throws std::runtime_error naming the address and the reason ("in use by another process" when
// the port is taken).
ListeningSocket open_listening_socket(const std::string& host, int port, int backlog,
                                      bool nonblocking);

// host:port as the authority of a URL: an IPv6 address in brackets ("[::1]:5500").
std::string url_authority(const std::string& host, int port);

class TcpListener {
 public:
  // Takes an accepted connection over; called on run()'s thread.
  using Adopt = std::function<void(int fd)>;

  // `send_timeout`: a peer that stops reading for this long makes a send fail (SO_SNDTIMEO), so
  // that no thread waits on it for ever. Throws std::runtime_error when it cannot make its
  // wake-up pipe.
  TcpListener(std::string host, int port, std::chrono::seconds send_timeout, Adopt adopt);
  ~TcpListener();  // stop()s
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;

  // Binds and listens; throws std::runtime_error naming the address when it cannot.
  void bind();
  bool bound() const;
  int port() const { return port_; }
  // Accepts until stop(). Throws std::logic_error before bind().
  void run();
  // Stops accepting and closes the listening socket once run() has returned. Safe from any
  // thread, and more than once.
  void stop();

 private:
  std::string host_;
  int requested_port_;
  std::chrono::seconds send_timeout_;
  Adopt adopt_;
  int port_ = 0;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // stop() writes to wake_[1] to end run()'s poll
  mutable std::mutex mutex_;
  bool stopping_ = false, running_ = false;
  std::condition_variable run_ended_;
};

}  // namespace tts::serve
