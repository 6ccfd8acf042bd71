// Rules the languages share: abbreviation tables, amounts of money, day-first numeric dates,
// 24-hour clock times, minus signs, temperatures and digit groups (Roman numerals:
// roman_numerals.cpp; measures: measures.cpp). Each language says the words (normalize_XX.cpp).
#include "char_class.h"
#include "regex_rules.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend::detail {

namespace {
// Currency symbols and codes as written, and the ISO 4217 code each stands for.
struct Currency {
  const char* written;
  const char* code;
};
constexpr Currency kCurrencies[] = {
    {"\xE2\x82\xAC", "EUR"}, {"$", "USD"},   {"\xC2\xA3", "GBP"}, {"\xE2\x82\xBD", "RUB"},
    {"\xC2\xA5", "JPY"},     {"EUR", "EUR"}, {"USD", "USD"},      {"GBP", "GBP"},
    {"RUB", "RUB"},          {"MXN", "MXN"}, {"JPY", "JPY"}};

std::string currency_code(const std::string& written) {
  for (const Currency& c : kCurrencies)
    if (written == c.written) return c.code;
  return "USD";
}

// Whole part: plain digits, or groups of three after 1-3 digits separated by one of . , space,
// no-break space, narrow no-break space or apostrophe. Fraction: 1-2 digits after . or , (three
// digits after a separator are a group, not cents).
const std::string kAmount =
    R"(((?:\d{1,3}(?:(?:[.,' ]|\xC2\xA0|\xE2\x80\xAF)\d{3})+)|\d+)(?:[.,](\d{1,2}))?(?!\d))";
const std::string kSymbol =
    R"((\xE2\x82\xAC|\$|\xC2\xA3|\xE2\x82\xBD|\xC2\xA5|EUR|USD|GBP|RUB|MXN|JPY))";

Amount amount_of(const std::string& whole, const std::string& fraction, const std::string& symbol,
                 bool& ok) {
  Amount a;
  std::string digits;
  for (char c : whole)
    if (c >= '0' && c <= '9') digits += c;
  unsigned long long value = 0;
  ok = parse_integer(digits, value);
  a.whole = value;
  if (!fraction.empty()) a.cents = std::stoi(fraction) * (fraction.size() == 1 ? 10 : 1);
  a.currency = currency_code(symbol);
  return a;
}
}  // namespace

std::string expand_abbreviations(const std::string& text, const std::vector<Abbreviation>& table) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const Abbreviation* best = nullptr;
    if (!word_char_before(text, i)) {
      for (const Abbreviation& a : table) {
        if (text.compare(i, a.written.size(), a.written) != 0) continue;
        const bool dotted = a.written.back() == '.';
        if (!dotted && word_char_at(text, i + a.written.size())) continue;
        if (!best || a.written.size() > best->written.size()) best = &a;
      }
    }
    if (!best) {
      out += text[i++];
      continue;
    }
    out += best->spoken;
    i += best->written.size();
    // A period that also ended the sentence stays.
    if (best->written.back() == '.') {
      bool last = true;
      for (std::size_t k = i; k < text.size(); ++k)
        if (word_char_at(text, k)) last = false;
      if (last) out += '.';
    }
  }
  return out;
}

std::string expand_money(const std::string& text,
                         const std::function<std::string(const Amount&)>& say) {
  // Made once and never destroyed (*new): a synthesis still running when its program exits may use
  // it after static destructors have run, until the engine's exit handler stops it.
  static const std::regex& kPrefix = *new std::regex(kSymbol + " ?" + kAmount);
  static const std::regex& kSuffix =
      *new std::regex(R"((?:^|\b))" + kAmount + " ?" + kSymbol + R"((?![A-Za-z]))");
  std::string out = replace_all(text, kSuffix, [&](const std::smatch& m) {
    bool ok = false;
    Amount a = amount_of(m.str(1), m.str(2), m.str(3), ok);
    return ok ? say(a) : m.str(0);
  });
  return replace_all(out, kPrefix, [&](const std::smatch& m) {
    bool ok = false;
    Amount a = amount_of(m.str(2), m.str(3), m.str(1), ok);
    return ok ? say(a) : m.str(0);
  });
}

std::string expand_numeric_dates(
    const std::string& text,
    const std::function<std::string(unsigned, unsigned, unsigned, int)>& say) {
  static const std::regex& kDate = *new std::regex(
      R"(\b(0?[1-9]|[12]\d|3[01])([./-])(0?[1-9]|1[0-2])\2(\d{4}|\d{2})\b(?![./-]?\d))");
  static const std::regex& kIso = *new std::regex(
      R"(\b(1[1-9]\d\d|20\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b(?![./-]?\d))");
  const std::string iso = replace_all(text, kIso, [&](const std::smatch& m) {
    return say(static_cast<unsigned>(std::stoul(m.str(3))),
               static_cast<unsigned>(std::stoul(m.str(2))),
               static_cast<unsigned>(std::stoul(m.str(1))), 4);
  });
  return replace_all(iso, kDate, [&](const std::smatch& m) {
    return say(static_cast<unsigned>(std::stoul(m.str(1))),
               static_cast<unsigned>(std::stoul(m.str(3))),
               static_cast<unsigned>(std::stoul(m.str(4))), static_cast<int>(m.length(4)));
  });
}

std::string expand_minus_signs(const std::string& text, std::string_view minus) {
  // The minus sign (U+2212) is nothing else. A hyphen-minus or an en dash is one only directly
  // before a digit at the start of a word: after a digit or letter it joins ("10-12", "1-го").
  static const std::regex& kMathMinus = *new std::regex("\xE2\x88\x92 ?");
  static const std::regex& kDashBeforeDigit =
      *new std::regex(R"((^|[\s(\[])(?:-|\xE2\x80\x93)(?=\d))");
  std::string out = std::regex_replace(text, kMathMinus, " " + std::string(minus) + " ");
  out = std::regex_replace(out, kDashBeforeDigit, "$1" + std::string(minus) + " ");
  return out;
}

std::string expand_degrees(const std::string& text, std::string_view degrees) {
  static const std::regex& kDegrees = *new std::regex(R"((\d) ?\xC2\xB0 ?(C|F)?(?![A-Za-z]))");
  return replace_all(text, kDegrees, [degrees](const std::smatch& m) {
    const std::string scale = m.str(2) == "C" ? " Celsius" : m.str(2) == "F" ? " Fahrenheit" : "";
    return m.str(1) + " " + std::string(degrees) + scale;
  });
}

std::string expand_clock_times(const std::string& text, bool french_h,
                               const std::function<std::string(unsigned, int)>& say) {
  static const std::regex& kColon =
      *new std::regex(R"(\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?\b(?![.,:]\d))");
  static const std::regex& kFrench =
      *new std::regex(R"(\b([01]?\d|2[0-3]) ?h ?([0-5]\d)?(?![\w\x80-\xFF]))");
  std::string out = replace_all(text, kColon, [&](const std::smatch& m) {
    return say(static_cast<unsigned>(std::stoul(m.str(1))), std::stoi(m.str(2)));
  });
  if (!french_h) return out;
  return replace_all(out, kFrench, [&](const std::smatch& m) {
    return say(static_cast<unsigned>(std::stoul(m.str(1))), m[2].matched ? std::stoi(m.str(2)) : 0);
  });
}

std::string join_digit_groups(const std::string& text) {
  static const std::regex& kGroups =
      *new std::regex(R"(\b\d{1,3}(?:(?: |\xC2\xA0|\xE2\x80\xAF)\d{3})+\b(?![.,]\d{3}))");
  static const std::regex& kSeparator = *new std::regex(R"( |\xC2\xA0|\xE2\x80\xAF)");
  return replace_all(text, kGroups, [](const std::smatch& m) {
    return std::regex_replace(m.str(0), kSeparator, "");
  });
}

std::string expand_numbers(const std::string& text, const NumberWords& words) {
  static const std::regex& kPercent = *new std::regex(R"((\d) ?%)");
  std::string out = std::regex_replace(text, kPercent, "$1 " + std::string(words.percent));
  for (char separator : words.group_separators) {
    const std::string s = separator == '.' ? "\\." : std::string(1, separator);
    const std::regex groups("(^|[^\\w.,])(\\d{1,3}(?:" + s + "\\d{3})+)(?![\\w]|[.,]\\d{3})");
    out = replace_all(out, groups, [&](const std::smatch& m) {
      std::string digits;
      for (char c : m.str(2))
        if (c != separator) digits += c;
      return m.str(1) + digits;
    });
  }
  static const std::regex& kNumber =
      *new std::regex(R"((^|[^\w.,])(\d{1,15})(?:([.,])(\d{1,15}))?(?![\w]|[.,]\d))");
  return replace_all(out, kNumber, [&](const std::smatch& m) {
    std::string said = m.str(1) + words.cardinal(std::stoull(m.str(2)));
    if (!m[3].matched) return said;
    said += ' ';
    said += m.str(3) == "," ? words.comma : words.point;
    const std::string fraction = m.str(4);
    std::size_t zeros = 0;
    while (zeros < fraction.size() && fraction[zeros] == '0') {
      said += " " + words.cardinal(0);
      ++zeros;
    }
    if (zeros < fraction.size()) said += " " + words.cardinal(std::stoull(fraction.substr(zeros)));
    return said;
  });
}

std::string collapse_spaces(const std::string& text) {
  static const std::regex& kSpaces = *new std::regex(R"( {2,})");
  std::string out = std::regex_replace(text, kSpaces, " ");
  while (!out.empty() && out.front() == ' ') out.erase(0, 1);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace tts::frontend::detail
