// The connections of `tts serve`'s Wyoming side, held so that idle and slow clients cannot deny
// the others.
//
// One polling thread reads every connection's bytes, without blocking, and frames them into
// events (wyoming_protocol.h). Only whole events reach a worker thread, which hands them to the
// connection's session (wyoming_session.h) and gives the connection back for the next ones; idle
// and slow clients therefore hold no thread. A connection must send its first whole event within
// `first_event_timeout` of opening, and then one at least every `idle_timeout`, or it gets an
// `error` (code "timeout") and is closed. At most `max_connections` are open: a new one beyond
// that closes the one that has waited longest for its next event, or, when every connection has
// events being handled, gets an `error` (code "busy") and is closed. Internal to tts_serve.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../wake_pipe.h"
#include "tts/serve/wyoming_protocol.h"
#include "wyoming_session.h"

namespace tts::serve {

struct WyomingConnectionLimits {
  int max_connections = 256;
  int threads = 32;  // connections whose events are handled at once
  std::chrono::milliseconds first_event_timeout{10'000};
  std::chrono::milliseconds idle_timeout{60'000};
  wyoming::FrameLimits frame;
};

class WyomingConnections {
 public:
  // The session of a new connection, which answers on `fd`.
  using NewSession = std::function<std::unique_ptr<WyomingSession>(int fd)>;
  // Told of each connection refused or closed here: "connections" (over the limit),
  // "idle_timeout" (no event in time), "internal" (its session threw).
  using Refused = std::function<void(const char* reason)>;

  WyomingConnections(WyomingConnectionLimits limits, NewSession new_session, Refused refused);
  ~WyomingConnections();  // stop()s
  WyomingConnections(const WyomingConnections&) = delete;
  WyomingConnections& operator=(const WyomingConnections&) = delete;

  // Takes an accepted connection over (from the accepting thread); closes it after stop().
  void adopt(int fd);
  // Cancels the syntheses being spoken (their streams end with an `error`, which gets a moment to
  // leave), closes every connection and joins the threads. Safe from any thread, and more than
  // once.
  void stop();

 private:
  struct Connection;
  using Clock = std::chrono::steady_clock;

  void poll_loop();
  bool finished_stopping(Clock::time_point now);  // poll thread, under mutex_
  void take_new(Clock::time_point now);           // poll thread, under mutex_
  void expire(Clock::time_point now);             // poll thread, under mutex_
  void read_from(Connection& c);                  // poll thread
  void dispatch(Connection& c);                   // poll thread
  void work();                                    // a worker thread
  void close_after_error(Connection& c);          // under mutex_ or on the poll thread
  void wake();

  const WyomingConnectionLimits limits_;
  NewSession new_session_;
  Refused refused_;
  WakePipe wake_;
  std::vector<char> read_buffer_;  // the poll thread's
  std::mutex stop_mutex_;          // one stop() at a time
  std::mutex mutex_;
  std::condition_variable work_ready_, worker_done_;
  bool stopping_ = false, stopped_ = false;
  Clock::time_point stop_deadline_;  // stopping: streams being cut get until then to say so
  std::vector<int> incoming_;        // adopted, not yet seen by the poll thread
  std::list<std::unique_ptr<Connection>> open_;
  std::deque<Connection*> jobs_;  // with events, waiting for a worker
  std::vector<std::thread> threads_;
  int idle_threads_ = 0, busy_threads_ = 0;
  std::thread poller_;
};

}  // namespace tts::serve
