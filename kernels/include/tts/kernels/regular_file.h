// Reading a file that must be a regular file (a voice's or a model's JSON, a checkpoint's record):
// a FIFO, device or socket put in its place is refused with a clear message instead of blocking
// the reader for ever or streaming from a device.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace tts::kernels {

// Thrown by read_regular_file; what() names the path and why. missing() when it does not exist.
class RegularFileError : public std::runtime_error {
 public:
  RegularFileError(const std::string& what, bool missing)
      : std::runtime_error(what), missing_(missing) {}
  bool missing() const { return missing_; }

 private:
  bool missing_;
};

// The whole contents of `path`, which is opened without blocking (a FIFO without a writer would
// otherwise block the open) and checked with fstat to be a regular file before it is read. A file
// of more than `max_bytes` is refused before a byte of it is read, naming its size and the limit.
std::string read_regular_file(const std::filesystem::path& path,
                              std::uint64_t max_bytes = UINT64_MAX);

// Checks, without opening it, that `path` (links followed) is a regular file; throws
// RegularFileError saying what it is instead: "a FIFO", "a device", "a directory", "a socket",
// "a symbolic link loop" (missing() when nothing is there, a link to nothing included).
void require_regular_file(const std::filesystem::path& path);

}  // namespace tts::kernels
