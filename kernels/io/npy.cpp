// Float32 .npy reading and writing (NumPy format versions 1.0, 2.0 and 3.0).
// Format: "\x93NUMPY", major, minor, header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0),
// then a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), } padded with
// spaces and ended by '\n' so the data starts on a 64-byte boundary, then the raw data.
#include "tts/kernels/npy.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

// The data is written and read as raw bytes and declared '<f4' (little-endian).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O assumes a little-endian host");

namespace tts::kernels {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

std::size_t element_count(const std::vector<std::size_t>& shape) {
  std::size_t count = 1;
  for (std::size_t d : shape) count *= d;
  return count;
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw NpyError(path.string() + ": " + what);
}

// A tiny parser for the header dict that numpy writes: string, bool and int-tuple values.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::filesystem::path& path)
      : s_(text), path_(path) {}

  void parse(std::string& descr, bool& fortran, std::vector<std::size_t>& shape) {
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        have_order = true;
      } else if (key == "shape") {
        shape = tuple();
        have_shape = true;
      } else {
        fail(path_, "unexpected key '" + key + "' in .npy header");
      }
      skip_space();
      if (peek() == ',') ++i_;
    }
    if (!have_descr || !have_order || !have_shape)
      fail(path_, ".npy header lacks 'descr', 'fortran_order' or 'shape'");
  }

 private:
  char peek() {
    if (i_ >= s_.size()) fail(path_, "malformed .npy header (ends early)");
    return s_[i_];
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(path_, std::string("malformed .npy header (expected '") + c + "')");
    ++i_;
  }
  std::string quoted() {
    skip_space();
    const char q = peek();
    if (q != '\'' && q != '"') fail(path_, "malformed .npy header (expected a string)");
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) fail(path_, "malformed .npy header (unterminated string)");
    std::string out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail(path_, "malformed .npy header (fortran_order is not True or False)");
  }
  std::vector<std::size_t> tuple() {
    std::vector<std::size_t> out;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail(path_, "malformed .npy header (shape is not a tuple of integers)");
      std::size_t value = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        const std::size_t digit = static_cast<std::size_t>(s_[i_++] - '0');
        if (value > (SIZE_MAX - digit) / 10) fail(path_, ".npy shape dimension overflows");
        value = value * 10 + digit;
      }
      out.push_back(value);
      skip_space();
      if (peek() == ',') ++i_;
    }
    ++i_;
    return out;
  }

  const std::string& s_;
  const std::filesystem::path& path_;
  std::size_t i_ = 0;
};

}  // namespace

std::string npy_header(const std::vector<std::size_t>& shape) {
  // Exactly numpy's repr: a 1-tuple keeps its trailing comma, "(5,)".
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dict += ",";
  dict += "), }";

  for (int major : {1, 2}) {
    const std::size_t prefix = kMagicSize + 2 + (major == 1 ? 2 : 4);
    const std::size_t unpadded = prefix + dict.size() + 1;  // + '\n'
    const std::size_t total = (unpadded + 63) / 64 * 64;
    const std::size_t header_len = total - prefix;
    if (major == 1 && header_len > 0xFFFF) continue;
    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(major);
    out += '\0';
    for (int b = 0; b < (major == 1 ? 2 : 4); ++b)
      out += static_cast<char>((header_len >> (8 * b)) & 0xFF);
    out += dict;
    out.append(total - unpadded, ' ');
    out += '\n';
    return out;
  }
  return {};  // unreachable: version 2.0 takes any header below 4 GiB
}

void write_npy(const std::filesystem::path& path, const float* data,
               const std::vector<std::size_t>& shape) {
  // Unique per process and call, so concurrent writers never share a temporary.
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, "cannot create " + tmp.string() + ": " + std::strerror(errno));
    const std::string header = npy_header(shape);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    const std::size_t count = element_count(shape);
    if (count > 0)
      out.write(reinterpret_cast<const char*>(data),
                static_cast<std::streamsize>(count * sizeof(float)));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      fail(path, "write failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    fail(path, "cannot rename the temporary file into place: " + ec.message());
  }
}

NpyArray read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  char prefix[kMagicSize + 2];
  if (!in.read(prefix, sizeof prefix) || std::memcmp(prefix, kMagic, kMagicSize) != 0)
    fail(path, "not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(prefix[kMagicSize]);
  if (major < 1 || major > 3) fail(path, "unsupported .npy version " + std::to_string(major));
  const int len_bytes = major == 1 ? 2 : 4;
  unsigned char len_buf[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char*>(len_buf), len_bytes)) fail(path, "truncated .npy header");
  std::uint32_t header_len = 0;
  for (int b = len_bytes - 1; b >= 0; --b) header_len = (header_len << 8) | len_buf[b];
  if (header_len > (1u << 24)) fail(path, "implausible .npy header length");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) fail(path, "truncated .npy header");

  std::string descr;
  bool fortran = false;
  NpyArray array;
  HeaderParser(header, path).parse(descr, fortran, array.shape);
  if (descr != "<f4" && descr != "f4")
    fail(path, "dtype '" + descr + "' is not little-endian float32 ('<f4')");

  std::size_t count = 1;
  for (std::size_t d : array.shape) {
    if (d != 0 && count > SIZE_MAX / sizeof(float) / d) fail(path, ".npy shape is too large");
    count *= d;
  }
  // Check the size against the file before allocating, so a corrupt shape cannot exhaust memory.
  const auto data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const auto available = static_cast<std::uint64_t>(in.tellg() - data_start);
  in.seekg(data_start);
  if (available < count * sizeof(float))
    fail(path, "truncated .npy data: expected " + std::to_string(count * sizeof(float)) +
                   " bytes, found " + std::to_string(available));
  std::vector<float> raw(count);
  if (count > 0 &&
      !in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(count * 4)))
    fail(path, "read failed");

  if (!fortran || array.shape.size() < 2) {
    array.data = std::move(raw);
    return array;
  }
  // Fortran order: the first index varies fastest. Walk the C-order output with a counter over
  // the indices and the matching Fortran offset.
  const std::size_t rank = array.shape.size();
  std::vector<std::size_t> f_stride(rank, 1), index(rank, 0);
  for (std::size_t d = 1; d < rank; ++d) f_stride[d] = f_stride[d - 1] * array.shape[d - 1];
  array.data.resize(count);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < count; ++i) {
    array.data[i] = raw[offset];
    for (std::size_t d = rank; d-- > 0;) {  // increment the C-order index, last axis fastest
      offset += f_stride[d];
      if (++index[d] < array.shape[d]) break;
      offset -= f_stride[d] * index[d];
      index[d] = 0;
    }
  }
  return array;
}

}  // namespace tts::kernels
