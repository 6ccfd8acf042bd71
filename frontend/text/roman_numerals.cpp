// Roman numerals, and the word tests the languages use to choose their reading (regex_rules.h).
#include <algorithm>

#include "char_class.h"
#include "regex_rules.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend::detail {

namespace {

// The value of a numeral of I, V and X in its canonical spelling (1 to 39); 0 for anything else.
unsigned roman_value(std::string_view letters) {
  static constexpr std::string_view kUnits[10] = {"",  "I",  "II",  "III",  "IV",
                                                  "V", "VI", "VII", "VIII", "IX"};
  static constexpr std::string_view kTens[4] = {"", "X", "XX", "XXX"};
  for (unsigned tens = 0; tens < 4; ++tens) {
    const std::string_view t = kTens[tens];
    if (letters.substr(0, t.size()) != t) continue;
    for (unsigned units = 0; units < 10; ++units)
      if (letters.substr(t.size()) == kUnits[units] && tens + units > 0) return 10 * tens + units;
  }
  return 0;
}

// The word (letters, digits and inner hyphens, as in "Jean-Paul") that ends just before byte `at`
// after at most one space; "" when there is none.
std::string word_ending_before(const std::string& text, std::size_t at) {
  if (at > 0 && text[at - 1] == ' ') --at;
  std::size_t start = at;
  while (start > 0) {
    std::size_t before = start;
    const char32_t cp = previous_code_point(text, before);
    if (!is_word_char(cp) && !(cp == '-' && before > 0 && word_char_before(text, before))) break;
    start = before;
  }
  return text.substr(start, at - start);
}

// The word that starts at byte `at` after at most one space; "" when there is none.
std::string word_starting_at(const std::string& text, std::size_t at) {
  if (at < text.size() && text[at] == ' ') ++at;
  std::size_t end = at;
  while (end < text.size()) {
    std::size_t next = end;
    if (!is_word_char(next_code_point(text, next))) break;
    end = next;
  }
  return text.substr(at, end - at);
}
}  // namespace

bool word_is_one_of(std::string_view word,
                    std::initializer_list<std::string_view> lowercase_words) {
  std::string lowered(word);
  for (char& c : lowered)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (std::string_view candidate : lowercase_words)
    if (lowered == candidate) return true;
  return false;
}

bool capitalised(std::string_view word) {
  std::size_t i = 0;
  if (word.empty() || !is_upper(next_code_point(word, i)) || i >= word.size()) return false;
  const char32_t second = next_code_point(word, i);
  return is_word_char(second) && !is_upper(second) && !(second >= '0' && second <= '9');
}

std::string expand_roman_numerals(
    const std::string& text, const std::vector<std::string_view>& suffixes,
    const std::function<std::optional<std::string>(const RomanNumeral&)>& say) {
  std::vector<std::string_view> longest_first = suffixes;
  std::sort(longest_first.begin(), longest_first.end(),
            [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
  std::string out;
  std::size_t i = 0, copied = 0;
  while (i < text.size()) {
    const bool starts_word =
        (text[i] == 'I' || text[i] == 'V' || text[i] == 'X') && !word_char_before(text, i);
    if (!starts_word) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && (text[end] == 'I' || text[end] == 'V' || text[end] == 'X')) ++end;
    RomanNumeral numeral;
    numeral.letters = std::string_view(text).substr(i, end - i);
    numeral.value = roman_value(numeral.letters);
    std::size_t after = end;
    for (std::string_view suffix : longest_first)
      if (text.compare(end, suffix.size(), suffix) == 0 &&
          !word_char_at(text, end + suffix.size())) {
        numeral.suffix = suffix;
        after = end + suffix.size();
        break;
      }
    std::optional<std::string> said;
    if (numeral.value > 0 && !word_char_at(text, after)) {
      numeral.word_before = word_ending_before(text, i);
      numeral.word_after = word_starting_at(text, after);
      said = say(numeral);
    }
    if (said) {
      out.append(text, copied, i - copied);
      out += *said;
      copied = after;
    }
    i = after;
    while (word_char_at(text, i)) next_code_point(text, i);  // the rest of a longer word
  }
  out.append(text, copied, std::string::npos);
  return out;
}

}  // namespace tts::frontend::detail
