// A plain TCP server for a protocol that is not HTTP (Wyoming): it binds and listens, accepts on
// run()'s thread, serves each connection on a thread of its own, turns away those beyond a limit,
// and stop() wakes every one of them. What the connections say is its handler's business.
// Internal to tts_serve.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tts::serve {

struct TcpListenerOptions {
  std::string host;
  int port = 0;             // 0: any free port (see TcpListener::port())
  int max_connections = 1;  // served at once; as many more are only told so
  // A peer that stops reading for this long makes a send fail (SO_SNDTIMEO), so that no
  // connection thread waits on it for ever.
  std::chrono::seconds send_timeout{60};
};

// One accepted connection, as its handler sees it.
class TcpConnection {
 public:
  int fd() const { return fd_; }
  // Beyond max_connections: the handler should only tell the peer so.
  bool over_limit() const { return over_limit_; }
  // What stop() calls, after shutting the socket down, to wake the connection's thread where it
  // waits on something other than the socket (a synthesis' next chunk). Empty clears it; safe
  // from the connection's thread while stop() runs on another.
  void set_interrupt(std::function<void()> interrupt);

 private:
  friend class TcpListener;
  int fd_ = -1;  // -1 once the connection's thread has closed it (under TcpListener::mutex_)
  bool over_limit_ = false;
  std::thread thread_;
  std::atomic<bool> done_{false};
  std::mutex interrupt_mutex_;
  std::function<void()> interrupt_;  // under interrupt_mutex_
};

class TcpListener {
 public:
  // Serves one connection on a thread of its own until it ends, and must not throw. Returns
  // whether the connection should linger before it is closed: when the last thing sent was an
  // error, which closing with unread bytes could destroy before the peer has read it.
  using Serve = std::function<bool(TcpConnection&)>;

  // `over_limit` is called on the accepting thread for each connection beyond max_connections,
  // also for those closed unanswered because as many are being turned away already. Throws
  // std::runtime_error when it cannot make its wake-up pipe.
  TcpListener(TcpListenerOptions options, Serve serve, std::function<void()> over_limit);
  ~TcpListener();  // stop()s
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;

  // Binds and listens; throws std::runtime_error naming the address when it cannot.
  void bind();
  bool bound() const;
  int port() const { return port_; }
  // Accepts until stop(); returns after every connection thread has ended. Throws
  // std::logic_error before bind().
  void run();
  // Stops accepting, shuts every connection down and calls its interrupt. Safe from any thread,
  // and more than once.
  void stop();

 private:
  void serve(TcpConnection& connection);
  void release(TcpConnection& connection, bool linger);
  void shut_connections();  // under mutex_
  void join_connections();

  TcpListenerOptions options_;
  Serve serve_;
  std::function<void()> over_limit_;
  int port_ = 0;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // stop() writes to wake_[1] to end run()'s poll
  mutable std::mutex mutex_;
  std::condition_variable run_ended_;
  bool stopping_ = false, running_ = false;
  std::list<std::unique_ptr<TcpConnection>> connections_;
};

}  // namespace tts::serve
