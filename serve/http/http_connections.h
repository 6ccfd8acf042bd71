// The connections of `tts serve`'s HTTP side, held so that no client can starve the others.
//
// One polling thread reads every connection's requests, without blocking, until a request is
// whole (http_framing.h): its line, headers and body must arrive within `read_timeout` of its
// first byte (of the connection's opening, for a new one), or it gets 408 and is closed; a
// connection idle between requests is closed after `keep_alive_timeout`. Only whole requests reach
// a worker thread, which answers them and hands the connection back for the next one. Idle and
// slow clients therefore hold no worker. Requests are served in two lanes: the long one (synthesis,
// which streams for as long as it speaks) and the quick one (everything else: health, metrics,
// lists), so that a health check never waits behind speech. At most `max_connections` are open;
// a new one beyond that closes the one that has waited longest for its request, or, when every
// connection has a request being served, is answered 503 and closed. Internal to tts_serve.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../wake_pipe.h"
#include "http_framing.h"

namespace tts::serve::http {

struct ConnectionLimits {
  int max_connections = 512;
  std::chrono::milliseconds read_timeout{10'000};       // a whole request, from its first byte
  std::chrono::milliseconds keep_alive_timeout{5'000};  // idle between two requests
  int keep_alive_max = 100;                             // requests on one connection
  int long_threads = 32;                                // long requests served at once
  int quick_threads = 2;                                // quick requests served at once
  FramingLimits framing;
  void validate() const;  // throws std::invalid_argument naming the field
};

class Connections {
 public:
  // Answers one whole request (`request`: exactly its bytes) on connection `fd`, on a worker
  // thread; `last`: the connection closes after it. Returns whether the connection may stay open
  // for another. Must not throw.
  using Serve = std::function<bool(int fd, std::string_view request, bool last)>;
  // Whether a request goes to the long lane (it may run for long).
  using IsLong = std::function<bool(const Framing& request)>;
  // Told of each connection or request refused here: "connections", "read_timeout",
  // "bad_request", "too_large" (for the metrics).
  using Refused = std::function<void(const char* reason)>;

  Connections(ConnectionLimits limits, Serve serve, IsLong is_long, Refused refused);
  ~Connections();  // stop()s
  Connections(const Connections&) = delete;
  Connections& operator=(const Connections&) = delete;

  // Takes an accepted connection over (from the accepting thread); closes it after stop().
  void adopt(int fd);
  // Closes every connection, ends the requests being served (their writes fail) and joins the
  // threads. Safe from any thread, and more than once.
  void stop();

 private:
  struct Connection;
  struct Lane {
    int max_threads = 1;
    int idle = 0;
    std::deque<Connection*> jobs;
    std::vector<std::thread> threads;
  };

  void poll_loop();
  void take_new();                // poll thread, under mutex_
  void read_from(Connection& c);  // poll thread
  bool frame(Connection& c);      // poll thread; false once dispatched (then the worker's)
  void refuse(Connection& c, int status, const std::string& message, const char* reason);
  void close_after_answer(Connection& c);                  // poll thread: linger, then close
  void expire(std::chrono::steady_clock::time_point now);  // poll thread, under mutex_
  void dispatch(Connection& c, bool long_lane);            // poll thread
  void work(Lane& lane);                                   // a worker thread
  void wake();

  const ConnectionLimits limits_;
  Serve serve_;
  IsLong is_long_;
  Refused refused_;
  WakePipe wake_;
  std::mutex stop_mutex_;  // one stop() at a time
  std::mutex mutex_;
  std::condition_variable work_ready_;
  bool stopping_ = false, stopped_ = false;
  std::vector<int> incoming_;                    // adopted, not yet seen by the poll thread
  std::list<std::unique_ptr<Connection>> open_;  // every open connection
  Lane long_lane_, quick_lane_;
  std::thread poller_;
};

}  // namespace tts::serve::http
