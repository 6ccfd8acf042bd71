// Whether a terminator followed by white space ends a sentence: abbreviations, initials and
// lower-case continuations say it does not.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>

#include "char_class.h"
#include "sentence_abbreviations.h"
#include "tts/frontend/sentence_splitter.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {
using namespace detail;

bool contains(const std::vector<std::string_view>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "U.S", "a.m", "J", "т.д", "Д": letters (of any script) with inner dots, or a single letter.
bool is_initialism(std::string_view token) {
  bool letter_expected = true;
  for (std::size_t i = 0; i < token.size();) {
    const char32_t cp = next_code_point(token, i);
    const bool letter = is_lower(cp) || is_upper(cp);
    if (letter_expected && letter) {
      letter_expected = false;
    } else if (!letter_expected && cp == '.') {
      letter_expected = true;
    } else {
      return false;
    }
  }
  return !token.empty() && !letter_expected;
}

// The word before a lone final period ("Mr" in "Mr."), or nothing for other terminators.
std::optional<std::string_view> word_before_period(std::string_view before) {
  std::size_t end = before.size();
  char32_t cp = previous_code_point(before, end);
  while (end > 0 && is_closer(cp)) cp = previous_code_point(before, end);
  if (cp != '.') return std::nullopt;  // ! ? … and full-width stops
  std::size_t period = end;
  if (end > 0 && previous_code_point(before, end) == '.') return std::nullopt;  // an ellipsis

  std::size_t word_start = before.rfind(' ', period);
  word_start = word_start == std::string_view::npos ? 0 : word_start + 1;
  std::string_view token = before.substr(word_start, period - word_start);
  while (!token.empty() && is_opener(first_code_point(token))) {
    std::size_t i = 0;
    next_code_point(token, i);
    token.remove_prefix(i);
  }
  return token;
}

bool is_weak_abbreviation(std::string_view token, const SentenceAbbreviations& lists) {
  return contains(lists.maybe_final, token) || is_initialism(token);
}
}  // namespace

bool sentence_end_needs_next_word(std::string_view before, TextRules rules) {
  auto token = word_before_period(before);
  return token && is_weak_abbreviation(*token, sentence_abbreviations(rules));
}

bool is_sentence_end(std::string_view before, std::string_view next_word, TextRules rules) {
  const SentenceAbbreviations& lists = sentence_abbreviations(rules);
  std::string without_marks;  // U+FFFC stands for an SSML <mark>: the word is what follows it
  if (next_word.find("\xEF\xBF\xBC") != std::string_view::npos) {
    without_marks = next_word;
    for (std::size_t at; (at = without_marks.find("\xEF\xBF\xBC")) != std::string::npos;)
      without_marks.erase(at, 3);
    next_word = without_marks;
  }
  next_word = strip_punctuation(next_word);
  char32_t next = first_code_point(next_word);
  if (is_lower(next)) return false;
  auto word = word_before_period(before);
  if (!word) return true;
  std::string_view token = *word;
  if (token.empty()) return true;
  if (contains(lists.titles, token) || contains(lists.always_continued, lower_ascii(token)))
    return false;
  bool digit_next = next >= '0' && next <= '9';
  if (contains(lists.before_number, token) && digit_next) return false;
  if (is_weak_abbreviation(token, lists)) {
    // The next word's letters (of any script; an apostrophe inside, as in "C'est", counts).
    std::size_t word_end = 0, letters_end = 0;
    bool apostrophe = false;
    for (std::size_t i = 0; i < next_word.size();) {
      const char32_t cp = next_code_point(next_word, i);
      if (!(is_lower(cp) || is_upper(cp) || cp == '\'')) break;
      apostrophe = apostrophe || cp == '\'';
      word_end = i;
      if (!apostrophe) letters_end = i;
    }
    return contains(lists.sentence_starters, next_word.substr(0, word_end)) ||
           contains(lists.sentence_starters, next_word.substr(0, letters_end));
  }
  return true;
}

}  // namespace tts::frontend
