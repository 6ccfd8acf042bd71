#include "http_connections.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "tts/serve/openai_speech.h"

namespace tts::serve::http {

namespace {

using Clock = std::chrono::steady_clock;

// How long a connection we close after an answer may take to read it: we drop what it still sends
// meanwhile, because closing with unread bytes makes the kernel send a reset, which can destroy
// the answer before the peer has read it.
constexpr auto kLinger = std::chrono::seconds(1);
constexpr std::size_t kReadBytes = 16 * 1024;  // per read; a few reads per connection and round

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// A whole response for a request refused before any handler saw it, in OpenAI's error form.
std::string refusal(int status, const std::string& message) {
  std::string body =
      openai_error_json(message, status == 503 ? "server_busy" : "invalid_request_error");
  std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n";
  if (status == 503) head += "Retry-After: 1\r\n";
  return head + "\r\n" + body;
}

}  // namespace

void ConnectionLimits::validate() const {
  if (max_connections < 1) throw std::invalid_argument("max connections must be at least 1");
  if (read_timeout.count() < 1) throw std::invalid_argument("read timeout must be positive");
  if (keep_alive_timeout.count() < 1)
    throw std::invalid_argument("keep-alive timeout must be positive");
  if (keep_alive_max < 1) throw std::invalid_argument("keep-alive requests must be at least 1");
  if (long_threads < 1 || quick_threads < 1)
    throw std::invalid_argument("connection threads must be at least 1");
  if (framing.max_head_bytes < 256) throw std::invalid_argument("max header bytes below 256");
}

struct Connections::Connection {
  enum class State { kReading, kServing, kClosing };
  int fd = -1;  // -1 once closed (then erased by the poll thread)
  State state = State::kReading;
  std::string buffer;              // bytes read and not yet served
  std::size_t wanted = 0;          // frame again once the buffer is this long (or a line ends)
  std::size_t request_length = 0;  // kServing: the request's bytes at the buffer's start
  bool idle = false;               // kReading between two requests: no byte of the next yet
  bool reframe = false;            // handed back with bytes of the next request already read
  int served = 0;
  Clock::time_point deadline, waiting_since;
};

Connections::Connections(ConnectionLimits limits, Serve serve, IsLong is_long, Refused refused)
    : limits_((limits.validate(), limits)),
      serve_(std::move(serve)),
      is_long_(std::move(is_long)),
      refused_(std::move(refused)) {
  long_lane_.max_threads = limits_.long_threads;
  quick_lane_.max_threads = limits_.quick_threads;
  poller_ = std::thread([this] { poll_loop(); });
}

Connections::~Connections() { stop(); }

void Connections::adopt(int fd) {
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

void Connections::wake() { wake_.wake(); }

void Connections::stop() {
  std::lock_guard<std::mutex> stopping(stop_mutex_);
  if (stopped_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    // Wakes workers wherever they write; their requests then end.
    for (auto& c : open_)
      if (c->state == Connection::State::kServing) ::shutdown(c->fd, SHUT_RDWR);
  }
  wake();
  work_ready_.notify_all();
  if (poller_.joinable()) poller_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Lane* lane : {&long_lane_, &quick_lane_})
      for (auto& t : lane->threads) threads.push_back(std::move(t));
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

void Connections::poll_loop() {
  std::vector<pollfd> fds;
  std::vector<Connection*> polled, reframes;
  for (;;) {
    int timeout_ms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      open_.remove_if([](const auto& c) { return c->fd < 0; });
      take_new();
      auto now = Clock::now();
      expire(now);
      fds.assign(1, pollfd{wake_.read_fd(), POLLIN, 0});
      polled.clear();
      reframes.clear();
      auto next = now + std::chrono::hours(1);
      for (auto& c : open_) {
        if (c->fd < 0 || c->state == Connection::State::kServing) continue;
        if (c->reframe) reframes.push_back(c.get());
        fds.push_back(pollfd{c->fd, POLLIN, 0});
        polled.push_back(c.get());
        next = std::min(next, c->deadline);
      }
      timeout_ms = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1);
    }
    for (Connection* c : reframes) {  // pipelined requests, read with the one before
      c->reframe = false;
      frame(*c);
    }
    if (!reframes.empty()) continue;  // their states have changed: poll afresh
    int ready = ::poll(fds.data(), fds.size(), std::max(timeout_ms, 0));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    if (fds[0].revents) wake_.drain();
    for (std::size_t i = 1; i < fds.size(); ++i)
      if (fds[i].revents) read_from(*polled[i - 1]);
  }
}

void Connections::take_new() {
  auto now = Clock::now();
  for (int fd : incoming_) {
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->deadline = now + limits_.read_timeout;
    c->waiting_since = now;
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
    if (open >= limits_.max_connections) {
      refused_("connections");
      if (oldest) {  // it has had longer than anyone to send its request: make room
        ::close(oldest->fd);
        oldest->fd = -1;
      } else if (closing < limits_.max_connections) {
        refuse(*c, 503,
               "the server has " + std::to_string(limits_.max_connections) +
                   " connections open, its limit, each with a request being served: try again",
               nullptr);
      } else {  // a flood: not even room to say so
        ::close(fd);
        continue;
      }
    }
    open_.push_back(std::move(c));
  }
  incoming_.clear();
}

void Connections::expire(Clock::time_point now) {
  for (auto& c : open_) {
    if (c->fd < 0 || c->deadline > now) continue;
    if (c->state == Connection::State::kReading && !c->buffer.empty() && !c->idle) {
      refuse(*c, 408,
             "the request did not arrive whole within " +
                 std::to_string(limits_.read_timeout.count()) + " ms",
             "read_timeout");
    } else if (c->state != Connection::State::kServing) {
      ::close(c->fd);  // idle past its time, or done lingering
      c->fd = -1;
    }
  }
}

void Connections::read_from(Connection& c) {
  char buffer[kReadBytes];
  for (int round = 0; round < 4 && c.fd >= 0; ++round) {
    ssize_t n = ::recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n == 0 && c.state == Connection::State::kReading && !c.buffer.empty()) {
      refuse(c, 400, "the connection ended inside the request", "bad_request");
      return;  // the peer may still read the answer: it has only closed its side
    }
    if (n <= 0) {  // the peer has gone (or has said all it will)
      ::close(c.fd);
      c.fd = -1;
      return;
    }
    if (c.state == Connection::State::kClosing) continue;  // dropped while we linger
    if (c.idle) {  // the next request's first byte: it has read_timeout from now
      c.idle = false;
      c.deadline = Clock::now() + limits_.read_timeout;
    }
    bool line_end = std::memchr(buffer, '\n', static_cast<std::size_t>(n)) != nullptr;
    c.buffer.append(buffer, static_cast<std::size_t>(n));
    // Once dispatched, the connection is its worker's: not one more look at it here.
    if ((line_end || c.buffer.size() >= c.wanted) && !frame(c)) return;
    if (c.state != Connection::State::kReading || static_cast<std::size_t>(n) < sizeof buffer)
      return;
  }
}

bool Connections::frame(Connection& c) {
  Framing f = frame_request(c.buffer, limits_.framing);
  switch (f.state) {
    case Framing::State::kIncomplete:
      c.wanted = f.wanted;
      // Chunk framing can make a body several times its content; past this it is not a request.
      if (c.buffer.size() > 2 * (limits_.framing.max_head_bytes + limits_.framing.max_body_bytes))
        refuse(c, 413, "the request is too large", "too_large");
      return true;
    case Framing::State::kRefused:
      refuse(c, f.status, f.message,
             f.status == 413 || f.status == 431 ? "too_large" : "bad_request");
      return true;
    case Framing::State::kComplete:
      c.request_length = f.length;
      dispatch(c, is_long_(f));
      return false;
  }
  return true;
}

void Connections::refuse(Connection& c, int status, const std::string& message,
                         const char* reason) {
  if (reason) refused_(reason);
  std::string bytes = refusal(status, message);
  (void)!::send(c.fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);  // best effort
  close_after_answer(c);
}

void Connections::close_after_answer(Connection& c) {
  ::shutdown(c.fd, SHUT_WR);
  c.state = Connection::State::kClosing;
  c.deadline = Clock::now() + kLinger;
  std::string().swap(c.buffer);
}

void Connections::dispatch(Connection& c, bool long_lane) {
  std::lock_guard<std::mutex> lock(mutex_);
  c.state = Connection::State::kServing;
  if (stopping_) return;  // stop() closes it
  Lane& lane = long_lane ? long_lane_ : quick_lane_;
  lane.jobs.push_back(&c);
  if (lane.idle < static_cast<int>(lane.jobs.size()) &&
      static_cast<int>(lane.threads.size()) < lane.max_threads) {
    try {
      lane.threads.emplace_back([this, &lane] { work(lane); });
      ++lane.idle;  // counted as waiting from now, so that the next request does not start another
    } catch (const std::system_error&) {
      // No thread to be had: the request waits for one of the lane's others.
    }
  }
  work_ready_.notify_all();
}

void Connections::work(Lane& lane) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || !lane.jobs.empty(); });
    if (stopping_) return;  // stop() closes what is left
    --lane.idle;
    Connection* c = lane.jobs.front();
    lane.jobs.pop_front();
    bool last = ++c->served >= limits_.keep_alive_max;
    lock.unlock();
    bool keep = serve_(c->fd, std::string_view(c->buffer.data(), c->request_length), last);
    c->buffer.erase(0, c->request_length);
    lock.lock();
    ++lane.idle;
    if (stopping_) return;
    auto now = Clock::now();
    if (keep && !last) {
      c->state = Connection::State::kReading;
      c->idle = c->buffer.empty();
      c->reframe = !c->buffer.empty();
      c->wanted = 0;
      c->waiting_since = now;
      c->deadline = now + (c->idle ? limits_.keep_alive_timeout : limits_.read_timeout);
    } else {
      close_after_answer(*c);
    }
    wake();
  }
}

}  // namespace tts::serve::http
