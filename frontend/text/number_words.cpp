#include "tts/frontend/number_words.h"

namespace tts::frontend::en {

namespace {
constexpr const char* kOnes[20] = {"zero",    "one",     "two",       "three",    "four",
                                   "five",    "six",     "seven",     "eight",    "nine",
                                   "ten",     "eleven",  "twelve",    "thirteen", "fourteen",
                                   "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
constexpr const char* kTens[10] = {"",      "",      "twenty",  "thirty", "forty",
                                   "fifty", "sixty", "seventy", "eighty", "ninety"};
constexpr const char* kScales[7] = {"",         "thousand",    "million",    "billion",
                                    "trillion", "quadrillion", "quintillion"};

void append_word(std::string& out, std::string_view word) {
  if (word.empty()) return;
  if (!out.empty()) out += ' ';
  out += word;
}

// 1..999
void append_below_thousand(std::string& out, unsigned n) {
  if (n >= 100) {
    append_word(out, kOnes[n / 100]);
    append_word(out, "hundred");
    n %= 100;
  }
  if (n >= 20) {
    append_word(out, kTens[n / 10]);
    if (n % 10) append_word(out, kOnes[n % 10]);
  } else if (n > 0) {
    append_word(out, kOnes[n]);
  }
}

std::string ordinal_of_word(std::string_view word) {
  static constexpr std::pair<std::string_view, std::string_view> kIrregular[] = {
      {"one", "first"},    {"two", "second"}, {"three", "third"},   {"five", "fifth"},
      {"eight", "eighth"}, {"nine", "ninth"}, {"twelve", "twelfth"}};
  for (auto [cardinal_word, ordinal_word] : kIrregular)
    if (word == cardinal_word) return std::string(ordinal_word);
  if (!word.empty() && word.back() == 'y')
    return std::string(word.substr(0, word.size() - 1)) + "ieth";
  return std::string(word) + "th";
}

// Replaces the last word of `words` by `transform(last word)`.
template <typename Transform>
std::string transform_last_word(const std::string& words, Transform transform) {
  std::size_t space = words.rfind(' ');
  std::size_t start = space == std::string::npos ? 0 : space + 1;
  return words.substr(0, start) + transform(std::string_view(words).substr(start));
}
}  // namespace

std::string cardinal(std::uint64_t n) {
  if (n == 0) return "zero";
  unsigned groups[7] = {};
  int count = 0;
  while (n > 0) {
    groups[count++] = static_cast<unsigned>(n % 1000);
    n /= 1000;
  }
  std::string out;
  for (int g = count - 1; g >= 0; --g) {
    if (groups[g] == 0) continue;
    append_below_thousand(out, groups[g]);
    append_word(out, kScales[g]);
  }
  return out;
}

std::string ordinal(std::uint64_t n) { return transform_last_word(cardinal(n), ordinal_of_word); }

std::string year(std::uint64_t y) {
  if (y >= 2000 && y < 2010) return cardinal(y);
  if (y < 1100 || y >= 10000) return cardinal(y);
  unsigned high = static_cast<unsigned>(y / 100), low = static_cast<unsigned>(y % 100);
  if (y % 1000 == 0) return cardinal(y);  // 3000: "three thousand"
  std::string out = cardinal(high);
  if (low == 0) return out + " hundred";
  if (low < 10) return out + " oh " + kOnes[low];
  return out + " " + cardinal(low);
}

std::string decade(std::uint64_t y) { return transform_last_word(year(y), plural_number_word); }

std::string plural_number_word(std::string_view word) {
  if (word == "six") return "sixes";
  if (!word.empty() && word.back() == 'y')
    return std::string(word.substr(0, word.size() - 1)) + "ies";
  return std::string(word) + "s";
}

std::string digits(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c >= '0' && c <= '9') append_word(out, kOnes[c - '0']);
  return out;
}

}  // namespace tts::frontend::en
