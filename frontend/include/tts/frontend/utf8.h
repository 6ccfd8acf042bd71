// UTF-8 validation, decoding and encoding of user text.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tts::frontend {

// Byte offset of the first byte that does not start or continue a valid UTF-8 sequence (overlong
// forms, surrogates and code points past U+10FFFF are invalid), or nothing if `text` is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

// Thrown where text must be UTF-8 and is not; `offset()` is the byte offset of the first bad byte
// counted from the start of the whole input (across streamed chunks).
class InvalidUtf8Error : public std::runtime_error {
 public:
  explicit InvalidUtf8Error(std::size_t offset);
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

// Throws InvalidUtf8Error if `text` is not valid UTF-8 (`base_offset` is added to the offset).
void require_valid_utf8(std::string_view text, std::size_t base_offset = 0);

// Decodes the code point starting at text[i] (text must be valid UTF-8) and advances i past it.
char32_t next_code_point(std::string_view text, std::size_t& i);

// Length in bytes of the UTF-8 sequence whose lead byte is `lead` (1 for continuation bytes).
std::size_t utf8_sequence_length(unsigned char lead);

// Appends the UTF-8 encoding of `code_point` to `out`.
void append_utf8(std::string& out, char32_t code_point);

// "U+00E9" style name of a code point, for error messages.
std::string code_point_name(char32_t code_point);

// `text` as it may be shown in a message on a terminal or in a log: control characters (C0 but
// tab, DEL, C1) as \xNN or \u00NN and bytes that are not UTF-8 as \xNN, so that input quoted in a
// warning or an error can neither move the cursor, retitle or clear the terminal nor forge lines.
// Everything else, backslashes included, is kept, so applying it twice changes nothing more.
std::string printable(std::string_view text);

// `text` with each byte that is not valid UTF-8 replaced by U+FFFD (the replacement character).
std::string replace_invalid_utf8(std::string_view text);

}  // namespace tts::frontend
