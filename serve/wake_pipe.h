// The self-pipe a connection front's poll thread sleeps on: other threads call wake() after
// handing it work (a new socket, a finished request, a stop), and the poll loop, which polls
// read_fd() among its sockets, drains it before looking at the work. Shared by the HTTP and
// Wyoming fronts.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tts::serve {

class WakePipe {
 public:
  WakePipe() {
    if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  ~WakePipe() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  WakePipe(const WakePipe&) = delete;
  WakePipe& operator=(const WakePipe&) = delete;

  void wake() {
    char byte = 1;
    (void)!::write(fds_[1], &byte, 1);  // a full pipe means a wake-up is pending already
  }
  int read_fd() const { return fds_[0]; }
  // Empties the pipe: every wake-up so far is seen by the loop that follows.
  void drain() {
    char sink[256];
    while (::read(fds_[0], sink, sizeof sink) > 0) {
    }
  }

 private:
  int fds_[2] = {-1, -1};
};

}  // namespace tts::serve
