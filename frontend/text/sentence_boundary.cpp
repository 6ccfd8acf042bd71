// Whether a terminator followed by white space ends a sentence: abbreviations, initials and
// lower-case continuations say it does not.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>

#include "char_class.h"
#include "tts/frontend/sentence_splitter.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {
using namespace detail;

// Titles and abbreviations that are followed by more of the same sentence.
constexpr std::string_view kTitles[] = {
    "Mr",   "Mrs",  "Ms",   "Dr",   "Prof", "St",  "Mt",   "Rev", "Fr",     "Gen",
    "Sen",  "Rep",  "Gov",  "Capt", "Lt",   "Col", "Sgt",  "Hon", "Messrs", "Mme",
    "Mlle", "Pres", "Supt", "Cmdr", "Adm",  "Maj", "Insp", "Det", "Dept"};
constexpr std::string_view kAlwaysContinued[] = {"vs", "e.g", "i.e", "cf", "approx",
                                                 "ca", "viz", "eg",  "ie"};
// Abbreviations that are followed by a number: "No. 5", "Fig. 3".
constexpr std::string_view kBeforeNumber[] = {"No", "Nos", "Fig", "Vol", "Ch",
                                              "pp", "p",   "Art", "Sec", "Eq"};
// Abbreviations that often end a sentence: they end one only before a sentence-starting word.
constexpr std::string_view kMaybeFinal[] = {"etc",  "Inc", "Ltd",  "Co", "Corp", "Jr", "Sr",
                                            "Bros", "Ave", "Blvd", "Rd", "esp",  "al", "Ph.D"};
constexpr std::string_view kSentenceStarters[] = {
    "The",     "A",     "An",   "I",      "It",    "He",    "She",   "We",     "They",
    "You",     "This",  "That", "These",  "Those", "There", "Then",  "But",    "And",
    "So",      "Yet",   "Or",   "If",     "When",  "While", "After", "Before", "Although",
    "However", "In",    "On",   "At",     "For",   "As",    "Our",   "My",     "His",
    "Her",     "Their", "Its",  "What",   "Who",   "Why",   "How",   "Where",  "Is",
    "Are",     "Was",   "Were", "Please", "Now",   "Today", "Yes"};

template <std::size_t N>
bool contains(const std::string_view (&list)[N], std::string_view word) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "U.S", "a.m", "J": letters with inner dots, or a single letter.
bool is_initialism(std::string_view token) {
  bool letter_expected = true;
  for (char c : token) {
    if (letter_expected && std::isalpha(static_cast<unsigned char>(c))) {
      letter_expected = false;
    } else if (!letter_expected && c == '.') {
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

bool is_weak_abbreviation(std::string_view token) {
  return contains(kMaybeFinal, token) || is_initialism(token);
}
}  // namespace

bool sentence_end_needs_next_word(std::string_view before) {
  auto token = word_before_period(before);
  return token && is_weak_abbreviation(*token);
}

bool is_sentence_end(std::string_view before, std::string_view next_word) {
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
  if (contains(kTitles, token) || contains(kAlwaysContinued, lower_ascii(token))) return false;
  bool digit_next = next >= '0' && next <= '9';
  if (contains(kBeforeNumber, token) && digit_next) return false;
  if (is_weak_abbreviation(token)) {
    std::size_t word_end = 0;
    while (word_end < next_word.size() &&
           std::isalpha(static_cast<unsigned char>(next_word[word_end])))
      ++word_end;
    return contains(kSentenceStarters, next_word.substr(0, word_end));
  }
  return true;
}

}  // namespace tts::frontend
