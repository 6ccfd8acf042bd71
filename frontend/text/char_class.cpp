#include "char_class.h"

#include "tts/frontend/utf8.h"

namespace tts::frontend::detail {

bool is_space(char32_t cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

bool is_line_break(char32_t cp) { return cp == '\n' || cp == 0x85 || cp == 0x2028 || cp == 0x2029; }

bool is_control(char32_t cp) {
  return (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) && !is_space(cp);
}

bool is_invisible(char32_t cp) {
  return cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || cp == 0x2060 || cp == 0xFEFF ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

bool is_terminator(char32_t cp) {
  return cp == '.' || cp == '!' || cp == '?' || cp == 0x2026 || cp == 0x203C ||
         (cp >= 0x2047 && cp <= 0x2049) || cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F ||
         cp == 0xFF0E;
}

bool is_closer(char32_t cp) {
  return cp == '"' || cp == '\'' || cp == ')' || cp == ']' || cp == '}' || cp == 0xBB ||
         cp == 0x2019 || cp == 0x201D || cp == 0x203A || cp == 0x300D || cp == 0x300F;
}

bool is_opener(char32_t cp) {
  return cp == '"' || cp == '\'' || cp == '(' || cp == '[' || cp == '{' || cp == 0xAB ||
         cp == 0x2018 || cp == 0x201C || cp == 0x201E || cp == 0x2039 || cp == 0x300C ||
         cp == 0x300E || cp == 0xBF || cp == 0xA1;
}

bool is_lower(char32_t cp) {
  if (cp < 0x80) return cp >= 'a' && cp <= 'z';
  if (cp >= 0xDF && cp <= 0xFF) return cp != 0xF7;
  if (cp >= 0x100 && cp <= 0x17F) return cp % 2 == 1;
  if (cp >= 0x3B1 && cp <= 0x3C9) return true;
  return cp >= 0x430 && cp <= 0x45F;
}

bool is_upper(char32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z';
  if (cp >= 0xC0 && cp <= 0xDE) return cp != 0xD7;
  if (cp >= 0x100 && cp <= 0x17F) return cp % 2 == 0;
  if (cp >= 0x391 && cp <= 0x3A9) return true;
  return cp >= 0x400 && cp <= 0x42F;
}

bool is_word_char(char32_t cp) {
  if (cp < 0x80)
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp == 0xAA || cp == 0xB5 || cp == 0xBA) return true;
  if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, symbols, arrows, dingbats
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK punctuation
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // full-width punctuation
  if (cp >= 0x1F000) return false;                 // emoji and pictographs
  return !is_space(cp) && !is_invisible(cp);
}

char32_t previous_code_point(std::string_view text, std::size_t& end) {
  std::size_t start = end;
  while (start > 0 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80) --start;
  if (start > 0) --start;
  std::size_t i = start;
  char32_t cp = next_code_point(text, i);
  end = start;
  return cp;
}

char32_t first_code_point(std::string_view text) {
  if (text.empty()) return 0;
  std::size_t i = 0;
  return next_code_point(text, i);
}

bool word_char_before(std::string_view text, std::size_t at) {
  if (at == 0) return false;
  std::size_t end = at;
  return is_word_char(previous_code_point(text, end));
}

bool word_char_at(std::string_view text, std::size_t at) {
  return at < text.size() && is_word_char(first_code_point(text.substr(at)));
}

bool has_word_char(std::string_view text) {
  for (std::size_t i = 0; i < text.size();)
    if (is_word_char(next_code_point(text, i))) return true;
  return false;
}

std::string_view strip_punctuation(std::string_view word) {
  while (!word.empty()) {
    std::size_t i = 0;
    char32_t cp = next_code_point(word, i);
    if (!is_opener(cp)) break;
    word.remove_prefix(i);
  }
  while (!word.empty()) {
    std::size_t end = word.size();
    char32_t cp = previous_code_point(word, end);
    if (!is_closer(cp) && !is_terminator(cp) && cp != ',' && cp != ';' && cp != ':') break;
    word = word.substr(0, end);
  }
  return word;
}

}  // namespace tts::frontend::detail
