#include "tts/kernels/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace tts::kernels {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// Closes the descriptor on every way out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void require_regular_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  struct stat info {};
  if (::stat(name.c_str(), &info) != 0) {
    const int err = errno;
    if (err == ELOOP)
      throw RegularFileError(name + ": is a symbolic link loop, not a regular file", false);
    throw RegularFileError(name + ": " + std::strerror(err), err == ENOENT || err == ENOTDIR);
  }
  if (!S_ISREG(info.st_mode))
    throw RegularFileError(
        name + ": is " + std::string(kind_of(info.st_mode)) + ", not a regular file", false);
}

std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  const std::string name = path.string();
  Descriptor file{::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) {
    const int err = errno;
    if (err == ELOOP)
      throw RegularFileError(name + ": is a symbolic link loop, not a regular file", false);
    throw RegularFileError(name + ": cannot open: " + std::strerror(err), err == ENOENT);
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0)
    throw RegularFileError(name + ": cannot read its status: " + std::strerror(errno), false);
  if (!S_ISREG(info.st_mode))
    throw RegularFileError(
        name + ": is " + std::string(kind_of(info.st_mode)) + ", not a regular file", false);
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes)
    throw RegularFileError(name + ": " + std::to_string(info.st_size) + " bytes, more than the " +
                               std::to_string(max_bytes) + " such a file may have",
                           false);
  std::string contents;
  contents.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw RegularFileError(name + ": read error: " + std::strerror(errno), false);
    }
    contents.append(buffer, static_cast<std::size_t>(n));
    if (contents.size() > max_bytes)  // it grew while read
      throw RegularFileError(
          name + ": more than the " + std::to_string(max_bytes) + " bytes such a file may have",
          false);
  }
  return contents;
}

}  // namespace tts::kernels
