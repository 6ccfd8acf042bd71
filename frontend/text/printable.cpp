// Text made safe to show (printable) and text made valid UTF-8 (replace_invalid_utf8).
#include <algorithm>
#include <cstdio>

#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {
// Calls `valid(code_point, bytes)` for each valid UTF-8 sequence of `text` and `invalid(byte)`
// for each byte that starts none.
template <typename Valid, typename Invalid>
void each_sequence(std::string_view text, Valid valid, Invalid invalid) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length =
        std::min(utf8_sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
    const std::string_view sequence = text.substr(i, length);
    if (find_invalid_utf8(sequence)) {
      invalid(static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    std::size_t at = 0;
    valid(next_code_point(sequence, at), sequence);
    i += length;
  }
}
}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char escape[16];  // room for any unsigned in hex, so no truncation warning
  each_sequence(
      text,
      [&](char32_t cp, std::string_view bytes) {
        if ((cp < 0x20 && cp != '\t') || cp == 0x7F) {
          std::snprintf(escape, sizeof escape, "\\x%02X", static_cast<unsigned>(cp));
          out += escape;
        } else if (cp >= 0x80 && cp <= 0x9F) {
          std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(cp));
          out += escape;
        } else {
          out += bytes;
        }
      },
      [&](unsigned char byte) {
        std::snprintf(escape, sizeof escape, "\\x%02X", byte);
        out += escape;
      });
  return out;
}

std::string replace_invalid_utf8(std::string_view text) {
  if (!find_invalid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  each_sequence(
      text, [&](char32_t, std::string_view bytes) { out += bytes; },
      [&](unsigned char) { out += "\xEF\xBF\xBD"; });
  return out;
}

}  // namespace tts::frontend
