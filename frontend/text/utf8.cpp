#include "tts/frontend/utf8.h"

#include <cstdio>

namespace tts::frontend {

std::optional<std::size_t> find_invalid_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char lead = bytes[i];
    std::size_t length;
    char32_t code_point;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code_point = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code_point = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code_point = lead & 0x07;
    } else {
      return i;
    }
    for (std::size_t k = 1; k < length; ++k) {
      // A byte that does not continue the sequence is the bad one even where the text ends
      // before the sequence would ("\xE8J" at the end: the J, as when more follows, and as the
      // streaming SentenceSplitter says; found by fuzz/text_fuzz). Only a text that ends inside
      // the sequence names its lead byte.
      if (i + k >= text.size()) return i;
      if ((bytes[i + k] & 0xC0) != 0x80) return i + k;
      code_point = (code_point << 6) | (bytes[i + k] & 0x3F);
    }
    static constexpr char32_t kMinimum[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (code_point < kMinimum[length] || code_point > 0x10FFFF ||
        (code_point >= 0xD800 && code_point <= 0xDFFF))
      return i;
    i += length;
  }
  return std::nullopt;
}

InvalidUtf8Error::InvalidUtf8Error(std::size_t offset)
    : std::runtime_error("invalid UTF-8 at byte offset " + std::to_string(offset)),
      offset_(offset) {}

void require_valid_utf8(std::string_view text, std::size_t base_offset) {
  if (auto bad = find_invalid_utf8(text)) throw InvalidUtf8Error(base_offset + *bad);
}

std::size_t utf8_sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

char32_t next_code_point(std::string_view text, std::size_t& i) {
  auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = utf8_sequence_length(lead);
  if (i + length > text.size()) length = 1;
  static constexpr unsigned char kLeadMask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t code_point = lead & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k)
    code_point = (code_point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  i += length;
  return code_point;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string code_point_name(char32_t code_point) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(code_point));
  return buffer;
}

}  // namespace tts::frontend
