#include "wyoming_connections.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace tts::serve {

namespace {

// How long a connection we close after an error may take to read it: we drop what it still sends
// meanwhile, because closing with unread bytes makes the kernel send a reset, which can destroy
// the error before the peer has read it.
constexpr auto kWyomingLinger = std::chrono::seconds(1);
// At stop(), how long the streams being cut get to send their `error` and to linger after it
// (a client that does not read would otherwise hold its thread until its send times out).
constexpr auto kWyomingStopGrace = std::chrono::seconds(1);
constexpr std::size_t kWyomingReadBytes = 64 * 1024;

// An `error` event for a connection no session speaks for: best effort, never blocking.
void send_error_now(int fd, const std::string& text, const char* code) {
  std::string bytes = wyoming::to_bytes(wyoming::error_event(text, code));
  (void)!::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

std::string in_seconds(std::chrono::milliseconds t) {
  std::string s = std::to_string(static_cast<double>(t.count()) / 1000.0);
  s.erase(s.find_last_not_of('0') + 1);  // "10.500000" → "10.5", "60.000000" → "60."
  if (s.back() == '.') s.pop_back();
  return s + " s";
}

}  // namespace

struct WyomingConnections::Connection {
  enum class State { kReading, kQueued, kServing, kClosing };
  explicit Connection(const wyoming::FrameLimits& limits) : parser(limits) {}
  int fd = -1;  // -1 once closed (then erased by the poll thread)
  State state = State::kReading;
  std::unique_ptr<WyomingSession> session;  // none for a connection refused at once
  wyoming::EventParser parser;
  std::vector<wyoming::Event> events;  // whole, not yet handled
  std::string frame_error;             // the stream is unreadable past `events`: why
  bool ended = false;                  // the peer has closed its side
  bool answered = false;               // it has had events handled
  Clock::time_point deadline, waiting_since;
};

WyomingConnections::WyomingConnections(WyomingConnectionLimits limits, NewSession new_session,
                                       Refused refused)
    : limits_(std::move(limits)),
      new_session_(std::move(new_session)),
      refused_(std::move(refused)),
      read_buffer_(kWyomingReadBytes) {
  if (limits_.max_connections < 1)
    throw std::invalid_argument("max connections must be at least 1");
  if (limits_.threads < 1) throw std::invalid_argument("connection threads must be at least 1");
  if (limits_.first_event_timeout.count() < 1 || limits_.idle_timeout.count() < 1)
    throw std::invalid_argument("event timeouts must be positive");
  poller_ = std::thread([this] { poll_loop(); });
}

WyomingConnections::~WyomingConnections() { stop(); }

void WyomingConnections::adopt(int fd) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) {
      incoming_.push_back(fd);
      fd = -1;
    }
  }
  if (fd >= 0) ::close(fd);
  wake();
}

void WyomingConnections::wake() { wake_.wake(); }

void WyomingConnections::stop() {
  std::lock_guard<std::mutex> stopping(stop_mutex_);
  if (stopped_) return;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    stop_deadline_ = Clock::now() + kWyomingStopGrace;
    for (Connection* c : jobs_) c->state = Connection::State::kReading;  // closed with the rest
    jobs_.clear();
    for (auto& c : open_)
      if (c->state == Connection::State::kServing) c->session->interrupt();
    work_ready_.notify_all();
    wake();
    worker_done_.wait_until(lock, stop_deadline_, [&] { return busy_threads_ == 0; });
    // Streams still sending to a client that does not read: their next send fails now.
    for (auto& c : open_)
      if (c->state == Connection::State::kServing && c->fd >= 0) ::shutdown(c->fd, SHUT_RDWR);
  }
  if (poller_.joinable()) poller_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& c : open_)
    if (c->fd >= 0) ::close(c->fd);
  for (int fd : incoming_) ::close(fd);
  open_.clear();
  incoming_.clear();
  stopped_ = true;
}

void WyomingConnections::poll_loop() {
  std::vector<pollfd> fds;
  std::vector<Connection*> polled;
  for (;;) {
    int timeout_ms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_.remove_if([](const auto& c) { return c->fd < 0; });
      auto now = Clock::now();
      if (stopping_) {
        if (finished_stopping(now)) return;
      } else {
        take_new(now);
      }
      expire(now);
      fds.assign(1, pollfd{wake_.read_fd(), POLLIN, 0});
      polled.clear();
      auto next = stopping_ ? stop_deadline_ : now + std::chrono::hours(1);
      for (auto& c : open_) {
        if (c->fd < 0 ||
            (c->state != Connection::State::kReading && c->state != Connection::State::kClosing))
          continue;
        fds.push_back(pollfd{c->fd, POLLIN, 0});
        polled.push_back(c.get());
        next = std::min(next, c->deadline);
      }
      timeout_ms = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1);
    }
    int ready = ::poll(fds.data(), fds.size(), std::max(timeout_ms, 0));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    if (fds[0].revents) wake_.drain();
    for (std::size_t i = 1; i < fds.size(); ++i)
      if (fds[i].revents) read_from(*polled[i - 1]);
  }
}

bool WyomingConnections::finished_stopping(Clock::time_point now) {
  bool lingering = false;
  for (auto& c : open_) {
    if (c->fd < 0) continue;
    if (c->state == Connection::State::kReading) {  // waiting for events: nothing to finish
      ::close(c->fd);
      c->fd = -1;
    } else {
      lingering = true;
    }
  }
  return (busy_threads_ == 0 && !lingering) || now >= stop_deadline_;
}

void WyomingConnections::take_new(Clock::time_point now) {
  for (int fd : incoming_) {
    auto c = std::make_unique<Connection>(limits_.frame);
    c->fd = fd;
    c->waiting_since = now;
    c->deadline = now + std::min(limits_.first_event_timeout, limits_.idle_timeout);
    int open = 0, closing = 0;
    Connection* oldest = nullptr;
    for (auto& o : open_) {
      if (o->fd < 0) continue;
      if (o->state == Connection::State::kClosing) {
        ++closing;
        continue;
      }
      ++open;
      if (o->state == Connection::State::kReading &&
          (!oldest || o->waiting_since < oldest->waiting_since))
        oldest = o.get();
    }
    std::string limit = "the server has " + std::to_string(limits_.max_connections) +
                        " connections open, its limit";
    if (open >= limits_.max_connections) {
      refused_("connections");
      if (oldest) {  // it has waited longer than anyone for its next event: make room
        send_error_now(oldest->fd,
                       limit + ", and this one has waited longest for an event: closing it",
                       "busy");
        ::close(oldest->fd);
        oldest->fd = -1;
      } else if (closing < limits_.max_connections) {
        send_error_now(fd, limit + ", each with events being handled: try again later", "busy");
        close_after_error(*c);
        open_.push_back(std::move(c));
        continue;
      } else {  // a flood: not even room to say so
        ::close(fd);
        continue;
      }
    }
    c->session = new_session_(fd);
    open_.push_back(std::move(c));
  }
  incoming_.clear();
}

void WyomingConnections::expire(Clock::time_point now) {
  for (auto& c : open_) {
    if (c->fd < 0 || c->deadline > now) continue;
    if (c->state == Connection::State::kReading) {
      refused_("idle_timeout");
      send_error_now(
          c->fd,
          c->answered
              ? "no event for " + in_seconds(limits_.idle_timeout) + ": closing the connection"
              : "no event within " +
                    in_seconds(std::min(limits_.first_event_timeout, limits_.idle_timeout)) +
                    " of connecting: closing the connection",
          "timeout");
      close_after_error(*c);
    } else if (c->state == Connection::State::kClosing) {
      ::close(c->fd);  // done lingering
      c->fd = -1;
    }
  }
}

void WyomingConnections::read_from(Connection& c) {
  for (int round = 0; round < 4; ++round) {
    ssize_t n = ::recv(c.fd, read_buffer_.data(), read_buffer_.size(), MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 || (n == 0 && c.state == Connection::State::kClosing)) {  // gone, or done
      ::close(c.fd);
      c.fd = -1;
      return;
    }
    if (c.state == Connection::State::kClosing) continue;  // dropped while we linger
    if (n == 0) {
      c.ended = true;
      if (!c.parser.at_boundary())
        c.frame_error = "the connection ended inside an event (truncated header, data or payload)";
      break;
    }
    if (!c.parser.feed(read_buffer_.data(), static_cast<std::size_t>(n), c.events)) {
      c.frame_error = "malformed event: " + c.parser.error();
      break;
    }
    if (static_cast<std::size_t>(n) < read_buffer_.size()) break;
  }
  if (c.state != Connection::State::kReading) return;
  if (!c.events.empty() || !c.frame_error.empty()) {
    dispatch(c);
  } else if (c.ended) {
    ::close(c.fd);
    c.fd = -1;
  }
}

void WyomingConnections::dispatch(Connection& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return;  // closed with the rest
  c.state = Connection::State::kQueued;
  jobs_.push_back(&c);
  if (idle_threads_ < static_cast<int>(jobs_.size()) &&
      static_cast<int>(threads_.size()) < limits_.threads) {
    try {
      threads_.emplace_back([this] { work(); });
      ++idle_threads_;  // counted as waiting from now, so that the next job does not start another
    } catch (const std::system_error&) {
      // No thread to be had: the events wait for one of the others.
    }
  }
  work_ready_.notify_one();
}

void WyomingConnections::work() {
  using After = WyomingSession::After;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    --idle_threads_;
    ++busy_threads_;
    Connection* c = jobs_.front();
    jobs_.pop_front();
    c->state = Connection::State::kServing;
    lock.unlock();
    After after = After::kClose;
    try {
      after = c->session->handle(c->events);
      if (after == After::kContinue && !c->frame_error.empty())
        after = c->session->refuse_frame(c->frame_error);
    } catch (const std::exception&) {  // out of memory: never seen, and must not end the server
      refused_("internal");
    }
    c->events.clear();
    if (after == After::kContinue && c->ended) after = After::kClose;
    lock.lock();
    --busy_threads_;
    ++idle_threads_;
    if (after == After::kLinger) {
      close_after_error(*c);
    } else if (after == After::kClose || stopping_) {
      ::close(c->fd);
      c->fd = -1;
      c->state = Connection::State::kClosing;
    } else {
      auto now = Clock::now();
      c->state = Connection::State::kReading;
      c->answered = true;
      c->waiting_since = now;
      c->deadline = now + limits_.idle_timeout;
    }
    worker_done_.notify_all();
    wake();
  }
}

void WyomingConnections::close_after_error(Connection& c) {
  ::shutdown(c.fd, SHUT_WR);
  c.state = Connection::State::kClosing;
  c.deadline = Clock::now() + kWyomingLinger;
  c.events.clear();
}

}  // namespace tts::serve
