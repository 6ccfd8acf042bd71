#include "tcp_listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace tts::serve {

namespace {

// How long a connection we are closing after an error may take to read our last message: we read
// and drop what it still sends meanwhile, because closing with unread bytes makes the kernel send
// a reset, which can destroy the error before the peer has read it.
constexpr auto kLingerTime = std::chrono::seconds(1);

// Closes a connection so that what we sent last still arrives (see kLingerTime).
void linger_close(int fd) {
  ::shutdown(fd, SHUT_WR);
  auto deadline = std::chrono::steady_clock::now() + kLingerTime;
  char sink[4096];
  std::size_t drained = 0;
  while (drained < (1u << 20)) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    drained += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

}  // namespace

void TcpConnection::set_interrupt(std::function<void()> interrupt) {
  std::lock_guard<std::mutex> lock(interrupt_mutex_);
  interrupt_ = std::move(interrupt);
}

TcpListener::TcpListener(TcpListenerOptions options, Serve serve, std::function<void()> over_limit)
    : options_(std::move(options)), serve_(std::move(serve)), over_limit_(std::move(over_limit)) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
}

TcpListener::~TcpListener() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void TcpListener::bind() {
  const auto& o = options_;
  std::string where = o.host + ":" + std::to_string(o.port);
  if (o.port < 0 || o.port > 65535)
    throw std::runtime_error("cannot listen on " + where + ": bad port");
  if (listen_fd_ >= 0) throw std::runtime_error("already listening on " + where);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port = std::to_string(o.port);
  int rc = ::getaddrinfo(o.host.empty() ? nullptr : o.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) throw std::runtime_error("cannot listen on " + where + ": " + ::gai_strerror(rc));
  std::string problem = "no address";
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      problem = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // restart without waiting
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
      problem = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error("cannot listen on " + where + ": " + problem);
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  if (bound.ss_family == AF_INET6)
    port_ = ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  else
    port_ = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  listen_fd_ = fd;
}

bool TcpListener::bound() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return listen_fd_ >= 0;
}

void TcpListener::run() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (listen_fd_ < 0) throw std::logic_error("TcpListener::run before bind");
    if (stopping_ || running_) return;
    running_ = true;
  }
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno != EINTR) break;
    if (fds[1].revents) break;                         // stop()
    if (fds[0].revents & (POLLERR | POLLNVAL)) break;  // the listening socket is broken
    // Connections that have ended: join their threads now, not at shutdown.
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = connections_.begin(); it != connections_.end();) {
        if ((*it)->done_) {
          (*it)->thread_.join();
          it = connections_.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (ready <= 0 || !(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: the connection stays pending and poll() would return at once, so
      // wait a little for some to be freed instead of spinning. Otherwise it has gone already.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    int one = 1;
    // The protocols served here send small messages, each of which should leave at once.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval send_timeout{static_cast<time_t>(options_.send_timeout.count()), 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);

    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      ::close(fd);
      break;
    }
    int serving = 0, refusing = 0;
    for (const auto& c : connections_) (c->over_limit_ ? refusing : serving) += !c->done_;
    auto connection = std::make_unique<TcpConnection>();
    connection->fd_ = fd;
    connection->over_limit_ = serving >= options_.max_connections;
    if (connection->over_limit_) {
      over_limit_();
      if (refusing >= options_.max_connections) {  // a flood: not even a thread to say so
        ::close(fd);
        continue;
      }
    }
    TcpConnection* c = connection.get();
    try {
      connection->thread_ = std::thread([this, c] { serve(*c); });
    } catch (const std::system_error&) {  // no thread to be had: refuse this one
      ::close(fd);
      continue;
    }
    connections_.push_back(std::move(connection));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    shut_connections();
  }
  join_connections();
  std::lock_guard<std::mutex> lock(mutex_);
  ::close(listen_fd_);
  listen_fd_ = -1;
  running_ = false;
  run_ended_.notify_all();
}

void TcpListener::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      char byte = 1;
      (void)!::write(wake_[1], &byte, 1);
    }
    shut_connections();
  }
  join_connections();
  std::unique_lock<std::mutex> lock(mutex_);
  run_ended_.wait(lock, [&] { return !running_; });
  if (listen_fd_ >= 0) {  // run() never ran
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

void TcpListener::serve(TcpConnection& connection) {
  bool linger = serve_(connection);
  release(connection, linger);
}

void TcpListener::release(TcpConnection& connection, bool linger) {
  int fd;
  {
    std::lock_guard<std::mutex> lock(mutex_);  // stop() shuts fds down under it: no reuse races
    fd = connection.fd_;
    connection.fd_ = -1;
  }
  if (fd >= 0) {
    if (linger)
      linger_close(fd);
    else
      ::close(fd);
  }
  connection.done_ = true;
}

void TcpListener::shut_connections() {
  // Shutting a socket down wakes its thread wherever it waits on it (poll, recv, send); the
  // interrupt wakes one that waits on something else.
  for (auto& c : connections_) {
    if (c->fd_ >= 0) ::shutdown(c->fd_, SHUT_RDWR);
    std::lock_guard<std::mutex> interrupt_lock(c->interrupt_mutex_);
    if (c->interrupt_) c->interrupt_();
  }
}

void TcpListener::join_connections() {
  std::list<std::unique_ptr<TcpConnection>> ending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending.swap(connections_);
  }
  for (auto& c : ending)
    if (c->thread_.joinable()) c->thread_.join();
}

}  // namespace tts::serve
