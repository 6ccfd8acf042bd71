// UTF-8 validation of user text.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tts::frontend {

// Byte offset of the first byte that does not start or continue a valid UTF-8 sequence (overlong
// forms, surrogates and code points past U+10FFFF are invalid), or nothing if `text` is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

}  // namespace tts::frontend
