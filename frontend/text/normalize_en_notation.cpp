// English notations that espeak-ng reads symbol by symbol ("one slash two", "hash one", "one
// hundred twenty three dash four thousand ..."): fractions, US telephone numbers, "#1", "~5",
// "24/7".
#include <string_view>

#include "regex_rules.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend::detail {

namespace {
// 3/4 -> "three quarters", 1/2 -> "one half", 5/8 -> "five eighths".
std::string fraction(unsigned long numerator, unsigned long denominator) {
  std::string part = denominator == 2   ? (numerator == 1 ? "half" : "halves")
                     : denominator == 4 ? "quarter"
                                        : en::ordinal(denominator);
  if (numerator != 1 && denominator != 2) part += "s";
  return en::cardinal(numerator) + " " + part;
}
}  // namespace

std::string expand_notation(const std::string& text) {
  static const std::regex& kAroundTheClock = *new std::regex(R"(\b24/7\b)");
  // A whole number before it makes a mixed number: 1 1/2 -> "one and a half". The fraction is a
  // proper one in halves, thirds, quarters or eighths to sixty-fourths (recipes, inches), not a
  // date (no third part) and not a score: 7/10, 4/5 and 98/100 are left as they are.
  static const std::regex& kFraction = *new std::regex(
      R"((^|[^\w/.,])(?:(\d{1,6}) )?([1-9]\d?)/(2|3|4|8|16|32|64)(?![\w/]|[.,]\d))");
  static const std::regex& kTelephone = *new std::regex(
      R"((^|[^\w+])(\+?1[ .-]?)?(?:\((\d{3})\) ?|(\d{3})[ .-])(\d{3})[.-](\d{4})(?![\w-]))");
  static const std::regex& kNumberSign = *new std::regex(R"((^|[\s(])#(\d))");
  static const std::regex& kAbout = *new std::regex(R"((^|[\s(])~ ?(\d))");
  std::string out = std::regex_replace(text, kAroundTheClock, "twenty four seven");
  out = replace_all(out, kFraction, [](const std::smatch& m) {
    const unsigned long numerator = std::stoul(m.str(3)), denominator = std::stoul(m.str(4));
    if (numerator >= denominator) return m.str(0);
    std::string said = m.str(1);
    if (m[2].matched) {
      said += en::cardinal(std::stoull(m.str(2))) + " and ";
      if (numerator == 1 && (denominator == 2 || denominator == 4))
        return said + (denominator == 2 ? "a half" : "a quarter");
    }
    return said + fraction(numerator, denominator);
  });
  out = replace_all(out, kTelephone, [](const std::smatch& m) {
    std::string said = m.str(1);
    if (m[2].matched) said += m.str(2)[0] == '+' ? "plus one, " : "one, ";  // 1-800-...
    return said + en::digits(m[3].matched ? m.str(3) : m.str(4)) + ", " + en::digits(m.str(5)) +
           ", " + en::digits(m.str(6));
  });
  out = std::regex_replace(out, kNumberSign, "$1number $2");
  return std::regex_replace(out, kAbout, "$1about $2");
}

}  // namespace tts::frontend::detail
