#include "http_request_stream.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace tts::serve::http {

namespace {

using AddressOf = int (*)(int, sockaddr*, socklen_t*);

void numeric_address(int fd, AddressOf address_of, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  char host[NI_MAXHOST], service[NI_MAXSERV];
  if (address_of(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      ::getnameinfo(reinterpret_cast<sockaddr*>(&address), length, host, sizeof host, service,
                    sizeof service, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    ip.clear();
    port = 0;
    return;
  }
  ip = host;
  port = std::atoi(service);
}

}  // namespace

bool RequestStream::is_writable() const {
  pollfd p{fd_, POLLOUT, 0};
  int ready = ::poll(&p, 1, static_cast<int>(write_timeout_.count()));
  return ready > 0 && !(p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

ssize_t RequestStream::read(char* ptr, size_t size) {
  size = std::min(size, request_.size() - at_);
  std::memcpy(ptr, request_.data() + at_, size);
  at_ += size;
  return static_cast<ssize_t>(size);
}

ssize_t RequestStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  // MSG_NOSIGNAL: a client that has gone is an error return here, never a SIGPIPE.
  return ::send(fd_, ptr, size, MSG_NOSIGNAL);
}

void RequestStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  numeric_address(fd_, ::getpeername, ip, port);
}

void RequestStream::get_local_ip_and_port(std::string& ip, int& port) const {
  numeric_address(fd_, ::getsockname, ip, port);
}

}  // namespace tts::serve::http
