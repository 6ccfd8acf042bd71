// Character classes the text frontend needs (internal). Approximate outside Latin, Greek and
// Cyrillic: enough to find sentence ends and drop control characters, not a Unicode database.
#pragma once

#include <cstddef>
#include <string_view>

namespace tts::frontend::detail {

// U+FFFC OBJECT REPLACEMENT CHARACTER: a word character to the splitter, which the SSML walk puts
// where a <mark> is (ssml_pipeline.cpp); sentence-end decisions look past it.
inline constexpr char32_t kObjectReplacement = 0xFFFC;

bool is_space(char32_t cp);       // white space, including no-break and ideographic spaces
bool is_line_break(char32_t cp);  // \n, NEL, line and paragraph separators
bool is_control(char32_t cp);     // C0/C1 controls and DEL that are not white space
bool is_invisible(char32_t cp);   // zero-width characters, BOM, soft hyphen: dropped
bool is_terminator(char32_t cp);  // . ! ? … and their full-width forms
bool is_closer(char32_t cp);      // closing quotes and brackets
bool is_opener(char32_t cp);      // opening quotes and brackets
bool is_lower(char32_t cp);
bool is_upper(char32_t cp);
bool is_word_char(char32_t cp);  // letters and digits of any script (approximately)

// The code point that ends before byte `end` of valid UTF-8 `text`; moves `end` to its start.
char32_t previous_code_point(std::string_view text, std::size_t& end);
// The first code point of `text` (0 if empty).
char32_t first_code_point(std::string_view text);
// Whether a letter or digit (of any script) ends just before, or starts at, byte `at` of `text`.
bool word_char_before(std::string_view text, std::size_t at);
bool word_char_at(std::string_view text, std::size_t at);
// True if `text` holds a letter or digit.
bool has_word_char(std::string_view text);
// `word` without leading openers and trailing closers/punctuation.
std::string_view strip_punctuation(std::string_view word);

}  // namespace tts::frontend::detail
