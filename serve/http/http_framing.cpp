#include "http_framing.h"

#include <cctype>
#include <vector>

namespace tts::serve::http {

namespace {

constexpr std::size_t kMaxChunkLine = 1024;  // a chunk-size line, extensions included
// One header line with its CR LF: cpp-httplib reads none longer (its CPPHTTPLIB_HEADER_MAX_LENGTH)
// and would answer a bare 400, where 431 is the status that says what is wrong.
constexpr std::size_t kMaxHeaderLine = 8192;

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Framing& refuse(Framing& f, int status, std::string message) {
  f.state = Framing::State::kRefused;
  f.status = status;
  f.message = std::move(message);
  return f;
}

Framing& incomplete(Framing& f, std::size_t wanted) {
  f.state = Framing::State::kIncomplete;
  f.wanted = wanted;
  return f;
}

// The method and the path (the target up to its query) of the request line.
void read_request_line(std::string_view line, Framing& f) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto space = line.find(' ');
  f.method = std::string(line.substr(0, space));
  if (space == std::string_view::npos) return;
  std::string_view target = line.substr(space + 1);
  target = target.substr(0, target.find(' '));
  f.path = std::string(target.substr(0, target.find('?')));
}

// A Content-Length value: decimal digits only (no sign, no space inside), below 2^63.
bool parse_length(std::string_view text, std::size_t& length) {
  if (text.empty() || text.size() > 18) return false;
  length = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    length = length * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

// The chunked body that starts at `at`: its end, or why not yet or never.
Framing& frame_chunks(std::string_view bytes, std::size_t at, const FramingLimits& limits,
                      Framing& f) {
  std::size_t content = 0;
  for (;;) {
    std::size_t eol = bytes.find('\n', at);
    if (eol == std::string_view::npos) {
      if (bytes.size() - at > kMaxChunkLine)
        return refuse(
            f, 400, "a chunk-size line is longer than " + std::to_string(kMaxChunkLine) + " bytes");
      return incomplete(f, at + kMaxChunkLine + 1);
    }
    std::string_view line = bytes.substr(at, eol - at);
    if (line.empty() || line.back() != '\r') return refuse(f, 400, "a chunk-size line lacks CR LF");
    std::size_t size = 0, digits = 0;
    for (char c : line.substr(0, line.size() - 1)) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) {
        if (c == ';' || c == ' ' || c == '\t') break;  // chunk extensions, ignored
        return refuse(f, 400, "a chunk size is not hexadecimal");
      }
      if (++digits > 15) return refuse(f, 400, "a chunk size is too large");
      size = size * 16 +
             static_cast<std::size_t>(std::isdigit(static_cast<unsigned char>(c))
                                          ? c - '0'
                                          : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    }
    if (digits == 0) return refuse(f, 400, "a chunk size is missing");
    at = eol + 1;
    if (size == 0) break;
    content += size;
    if (content > limits.max_body_bytes)
      return refuse(f, 413,
                    "the request body is too large: more than the limit of " +
                        std::to_string(limits.max_body_bytes) + " bytes");
    if (bytes.size() < at + size + 2) return incomplete(f, at + size + 2);
    if (bytes.substr(at + size, 2) != "\r\n")
      return refuse(f, 400, "a chunk is longer than its size says");
    at += size + 2;
  }
  // Trailer fields, up to a blank line.
  std::size_t trailers = 0;
  for (;;) {
    std::size_t eol = bytes.find('\n', at);
    if (eol == std::string_view::npos) {
      if (trailers + bytes.size() - at > limits.max_head_bytes)
        return refuse(f, 431, "the trailer fields are too long");
      return incomplete(f, at + limits.max_head_bytes + 1);
    }
    bool blank = eol == at || (eol == at + 1 && bytes[at] == '\r');
    trailers += eol + 1 - at;
    // Checked on whole lines too, so that the verdict does not depend on where the bytes that
    // were read so far happen to stop.
    if (trailers > limits.max_head_bytes) return refuse(f, 431, "the trailer fields are too long");
    at = eol + 1;
    if (blank) break;
  }
  f.state = Framing::State::kComplete;
  f.length = at;
  return f;
}

}  // namespace

Framing frame_request(std::string_view bytes, const FramingLimits& limits) {
  Framing f;
  const std::size_t line_end = bytes.find('\n');
  if (line_end == std::string_view::npos) {
    if (bytes.size() > limits.max_head_bytes)
      return refuse(
          f, 431,
          "the request line is longer than " + std::to_string(limits.max_head_bytes) + " bytes");
    return incomplete(f, limits.max_head_bytes + 1);
  }
  read_request_line(bytes.substr(0, line_end), f);
  // The head ends at the first blank line ("\r\n" at a line's start).
  const std::size_t blank = bytes.find("\n\r\n", line_end);
  const std::size_t head = blank == std::string_view::npos ? bytes.size() : blank + 3;
  if (head > limits.max_head_bytes)
    return refuse(f, 431,
                  "the request line and headers are longer than " +
                      std::to_string(limits.max_head_bytes) + " bytes");
  if (blank == std::string_view::npos) return incomplete(f, limits.max_head_bytes + 1);

  std::vector<std::string_view> lengths;
  std::string_view transfer_encoding;
  bool has_transfer_encoding = false;
  for (std::size_t at = line_end + 1; at < blank + 1;) {
    std::size_t eol = bytes.find('\n', at);
    if (eol + 1 - at > kMaxHeaderLine)
      return refuse(f, 431,
                    "a header line is longer than " + std::to_string(kMaxHeaderLine) + " bytes");
    std::string_view line = bytes.substr(at, eol - at);
    at = eol + 1;
    // As cpp-httplib reads headers: a line without CR LF is skipped; the name is what precedes
    // the colon, as it stands.
    if (line.empty() || line.back() != '\r') continue;
    line.remove_suffix(1);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon), value = trimmed(line.substr(colon + 1));
    if (same_name(name, "Content-Length")) lengths.push_back(value);
    if (same_name(name, "Transfer-Encoding")) {
      if (has_transfer_encoding) return refuse(f, 400, "Transfer-Encoding is given twice");
      has_transfer_encoding = true;
      transfer_encoding = value;
    }
  }

  if (has_transfer_encoding) {
    if (!lengths.empty())
      return refuse(f, 400, "a request may not have both Content-Length and Transfer-Encoding");
    if (!same_name(transfer_encoding, "chunked"))
      return refuse(f, 501,
                    "Transfer-Encoding \"" + std::string(transfer_encoding) +
                        "\" is not supported (only chunked)");
    return frame_chunks(bytes, head, limits, f);
  }
  std::size_t length = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::string_view text = lengths[i];
    std::size_t value = 0;
    if (!parse_length(text, value))
      return refuse(f, 400,
                    "Content-Length \"" + std::string(text) +
                        "\" is not a number of bytes (decimal digits only)");
    if (i > 0 && value != length)
      return refuse(f, 400, "Content-Length is given twice, with different values");
    length = value;
  }
  if (length > limits.max_body_bytes)
    return refuse(f, 413,
                  "the request body is too large: " + std::to_string(length) +
                      " bytes, more than the limit of " + std::to_string(limits.max_body_bytes));
  if (bytes.size() < head + length) return incomplete(f, head + length);
  f.state = Framing::State::kComplete;
  f.length = head + length;
  return f;
}

}  // namespace tts::serve::http
