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
#include <thread>

namespace tts::serve {

std::string url_authority(const std::string& host, int port) {
  bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

ListeningSocket open_listening_socket(const std::string& host, int port, int backlog,
                                      bool nonblocking) {
  std::string where = url_authority(host, port);
  if (port < 0 || port > 65535)
    throw std::runtime_error("cannot listen on " + where + ": bad port");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) throw std::runtime_error("cannot listen on " + where + ": " + ::gai_strerror(rc));
  std::string problem = "no address";
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    int type = a->ai_socktype | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0);
    fd = ::socket(a->ai_family, type, a->ai_protocol);
    if (fd < 0) {
      problem = std::strerror(errno);
      continue;
    }
    // SO_REUSEADDR: a restart binds at once, past the old connections' TIME_WAIT. Never
    // SO_REUSEPORT: with it a second server on the same port would start and share the traffic.
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, backlog) != 0) {
      problem = errno == EADDRINUSE
                    ? "the port is in use by another process (is another tts serve running?)"
                    : std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error("cannot listen on " + where + ": " + problem);
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  ListeningSocket socket;
  socket.fd = fd;
  socket.port = bound.ss_family == AF_INET6
                    ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                    : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return socket;
}

TcpListener::TcpListener(std::string host, int port, std::chrono::seconds send_timeout, Adopt adopt)
    : host_(std::move(host)),
      requested_port_(port),
      send_timeout_(send_timeout),
      adopt_(std::move(adopt)) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
}

TcpListener::~TcpListener() {
  stop();
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void TcpListener::bind() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (listen_fd_ >= 0)
    throw std::runtime_error("already listening on " + url_authority(host_, requested_port_));
  ListeningSocket socket = open_listening_socket(host_, requested_port_, 512, true);
  listen_fd_ = socket.fd;
  port_ = socket.port;
}

bool TcpListener::bound() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return listen_fd_ >= 0;
}

void TcpListener::run() {
  int listen_fd;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (listen_fd_ < 0) throw std::logic_error("TcpListener::run before bind");
    if (stopping_ || running_) return;
    running_ = true;
    listen_fd = listen_fd_;
  }
  for (;;) {
    pollfd fds[2] = {{listen_fd, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno != EINTR) break;
    if (fds[1].revents) break;                         // stop()
    if (fds[0].revents & (POLLERR | POLLNVAL)) break;  // the listening socket is broken
    if (ready <= 0 || !(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
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
    timeval send_timeout{static_cast<time_t>(send_timeout_.count()), 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    adopt_(fd);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ::close(listen_fd_);
  listen_fd_ = -1;
  running_ = false;
  run_ended_.notify_all();
}

void TcpListener::stop() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!stopping_) {
    stopping_ = true;
    char byte = 1;
    (void)!::write(wake_[1], &byte, 1);
  }
  run_ended_.wait(lock, [&] { return !running_; });
  if (listen_fd_ >= 0) {  // run() never ran
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

}  // namespace tts::serve
