// Float32 NumPy .npy files (format versions 1.0-3.0): what `tts mel` writes and the tests read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace tts::kernels {

// A malformed, truncated, unreadable or unwritable .npy file; the message names the file.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<float> data;  // always C (row-major) order, whatever order the file stored
};

// The complete header (magic, version, length, dict, padding) that write_npy puts before the data
// of a little-endian float32 C-order array of this shape. Version 1.0 unless the dict needs more
// than 65535 bytes (then 2.0), padded with spaces and a newline to a multiple of 64 bytes.
std::string npy_header(const std::vector<std::size_t>& shape);

// Writes `data` (product(shape) floats, C order) to a temporary file beside `path` and renames it
// into place, so a failure never leaves half a file. Throws NpyError.
void write_npy(const std::filesystem::path& path, const float* data,
               const std::vector<std::size_t>& shape);

// Reads a little-endian float32 array ('<f4'), C or Fortran order. Throws NpyError naming the file
// and the problem (bad magic, unsupported dtype, malformed header, truncated data).
NpyArray read_npy(const std::filesystem::path& path);

}  // namespace tts::kernels
