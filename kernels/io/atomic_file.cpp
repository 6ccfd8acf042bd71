#include "tts/kernels/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <streambuf>
#include <string>

namespace tts::kernels {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

// An ostream buffer over a POSIX fd that remembers the errno of the first failed write, so the
// error message can say "No space left on device" rather than just "stream went bad".
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    while (p < pptr()) {
      ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (error_ == 0) error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }
  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_;
};

std::atomic<unsigned long> temp_counter{0};

// A temporary is named after its target and its writer: TARGET + kTempMarker + "PID-COUNTER".
constexpr std::string_view kTempMarker = ".tmp-";

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp +=
      std::string(kTempMarker) + std::to_string(::getpid()) + "-" + std::to_string(temp_counter++);
  return tmp;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The writer's pid of a temporary's name, or 0 when the name is not one.
pid_t temporary_writer(std::string_view name) {
  const std::size_t marker = name.rfind(kTempMarker);
  if (marker == std::string_view::npos || marker == 0) return 0;
  const std::string_view tail = name.substr(marker + kTempMarker.size());
  const std::size_t dash = tail.find('-');
  if (dash == std::string_view::npos) return 0;
  const std::string_view pid = tail.substr(0, dash), counter = tail.substr(dash + 1);
  if (!all_digits(pid) || !all_digits(counter) || pid.size() > 9) return 0;
  const long value = std::stol(std::string(pid));
  return value > 0 ? static_cast<pid_t>(value) : 0;
}

bool process_is_running(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

void fsync_directory(const std::filesystem::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open folder to fsync: " + errno_text(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  // Some filesystems cannot fsync a folder (EINVAL); the rename is as durable as they allow.
  if (rc != 0 && err != EINVAL)
    throw std::runtime_error("fsync of folder failed: " + errno_text(err));
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = temp_path_for(path);
  auto fail = [&](const std::string& reason) -> std::runtime_error {
    return std::runtime_error("cannot write '" + path.string() + "': " + reason);
  };

  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw fail("cannot create temporary file '" + tmp.string() + "': " + errno_text(errno));
  }
  // From here on every failure closes (if still open) and removes the temporary.
  bool open = true;
  auto discard = [&] {
    if (open) ::close(fd);
    open = false;
    ::unlink(tmp.c_str());
  };

  auto buf = std::make_unique<FdStreambuf>(fd);
  std::ostream out(buf.get());
  try {
    write(out);
    out.flush();
  } catch (const std::exception& e) {
    discard();
    throw fail(std::string("writer threw: ") + e.what());
  } catch (...) {
    discard();
    throw fail("writer threw an unknown exception");
  }
  if (!out) {
    int err = buf->error();
    discard();
    throw fail(err != 0 ? "write failed: " + errno_text(err)
                        : std::string("output stream went bad"));
  }

  if (::fsync(fd) != 0) {
    int err = errno;
    discard();
    throw fail("fsync failed: " + errno_text(err));
  }
  open = false;
  if (::close(fd) != 0) {
    int err = errno;
    discard();
    throw fail("close failed: " + errno_text(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    discard();
    throw fail("cannot rename '" + tmp.string() + "' into place: " + errno_text(err));
  }
  try {
    fsync_directory(path.parent_path());
  } catch (const std::exception& e) {
    throw fail(std::string("file replaced but ") + e.what());
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  write_file_atomically(path, [contents](std::ostream& out) {
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  });
}

bool is_atomic_temporary_name(std::string_view name) { return temporary_writer(name) != 0; }

std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> removed;
  std::error_code ec;
  std::filesystem::directory_iterator it(folder, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t writer = temporary_writer(name);
    if (writer == 0 || process_is_running(writer)) continue;
    std::error_code file_ec;  // a link or folder of that name is not a file we wrote
    if (it->symlink_status(file_ec).type() != std::filesystem::file_type::regular) continue;
    if (std::filesystem::remove(it->path(), file_ec)) removed.push_back(it->path());
  }
  return removed;
}

}  // namespace tts::kernels
