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
    R"(((?:\d{1,3}(?:(?:[.,' ]|\xC2\xA0|\xE2\x80\xAF)\d{3})+)|\d+)(?:[.,](\d{1,2}))?(?!\d|[.,]\d))";
// A minus sign: hyphen-minus, U+2212 or an en dash.
const std::string kSign = R"(-|\xE2\x88\x92|\xE2\x80\x93)";
const std::string kSymbol =
    R"((\xE2\x82\xAC|\$|\xC2\xA3|\xE2\x82\xBD|\xC2\xA5|EUR|USD|GBP|RUB|MXN|JPY))";

Amount amount_of(const std::string& whole, const std::string& fraction, const std::string& symbol,
                 bool& ok) {
  Amount a;
  std::string digits;
  for (char c : whole)
    if (c >= '0' && c <= '9') digits += c;
  unsigned long long value = 0;
  // "007 €" is no amount: its zeros are said by the number rules.
  ok = parse_integer(digits, value) && !(digits.size() > 1 && digits[0] == '0');
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
                         const std::function<std::string(const Amount&)>& say,
                         std::string_view minus) {
  // Made once and never destroyed (*new): a synthesis still running when its program exits may use
  // it after static destructors have run, until the engine's exit handler stops it.
  // A sign at the start of a word before the symbol ("-$5"), or between the symbol and the amount
  // ("$-5", "€−3,50"), or before an amount written first ("-3,50 €").
  static const std::regex& kPrefix = *new std::regex(
      R"((?:(^|[\s(\[])()" + kSign + R"() ?)?)" + kSymbol + " ?(?:(" + kSign + ") ?)?" + kAmount);
  static const std::regex& kSuffix = *new std::regex(R"((?:(^|[\s(\[])()" + kSign + R"() ?|^|\b))" +
                                                     kAmount + " ?" + kSymbol + R"((?![A-Za-z]))");
  auto said = [&](const Amount& a, bool negative) {
    return negative ? std::string(minus) + " " + say(a) : say(a);
  };
  std::string out = replace_all(text, kSuffix, [&](const std::smatch& m) {
    bool ok = false;
    Amount a = amount_of(m.str(3), m.str(4), m.str(5), ok);
    return ok ? m.str(1) + spaced(m, said(a, m[2].matched)) : m.str(0);
  });
  out = replace_all(out, kPrefix, [&](const std::smatch& m) {
    bool ok = false;
    Amount a = amount_of(m.str(5), m.str(6), m.str(3), ok);
    return ok ? m.str(1) + spaced(m, said(a, m[2].matched || m[4].matched)) : m.str(0);
  });
  return out;
}

namespace {
bool leap_year(unsigned year, int year_digits) {
  // A two-digit year is taken in this century or the last, where 00 stands for 2000.
  if (year_digits == 2) return year % 4 == 0;
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}
}  // namespace

bool valid_date(unsigned day, unsigned month, unsigned year, int year_digits) {
  static constexpr unsigned kDays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
  return !(month == 2 && day == 29 && !leap_year(year, year_digits));
}

std::string expand_numeric_dates(
    const std::string& text,
    const std::function<std::string(unsigned, unsigned, unsigned, int)>& say) {
  static const std::regex& kDate = *new std::regex(
      R"(\b(0?[1-9]|[12]\d|3[01])([./-])(0?[1-9]|1[0-2])\2(\d{4}|\d{2})\b(?![./-]?\d))");
  static const std::regex& kIso = *new std::regex(
      R"(\b(1[1-9]\d\d|20\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b(?![./-]?\d))");
  // A date that is no date (31/02/2024) stays as it is written, for the number rules.
  auto checked = [&](const std::smatch& m, unsigned d, unsigned mo, unsigned y, int digits) {
    return valid_date(d, mo, y, digits) ? say(d, mo, y, digits) : m.str(0);
  };
  const std::string iso = replace_all(text, kIso, [&](const std::smatch& m) {
    return checked(m, static_cast<unsigned>(std::stoul(m.str(3))),
                   static_cast<unsigned>(std::stoul(m.str(2))),
                   static_cast<unsigned>(std::stoul(m.str(1))), 4);
  });
  return replace_all(iso, kDate, [&](const std::smatch& m) {
    return checked(m, static_cast<unsigned>(std::stoul(m.str(1))),
                   static_cast<unsigned>(std::stoul(m.str(3))),
                   static_cast<unsigned>(std::stoul(m.str(4))), static_cast<int>(m.length(4)));
  });
}

std::string expand_minus_signs(const std::string& text, std::string_view minus,
                               std::string_view plus) {
  // The minus sign (U+2212) is nothing else. A hyphen-minus or an en dash is one only directly
  // before a digit at the start of a word: after a digit or letter it joins ("10-12", "1-го").
  static const std::regex& kMathMinus = *new std::regex("\xE2\x88\x92 ?");
  static const std::regex& kDashBeforeDigit = *new std::regex(
      R"((^|[\s(\[])(?:-|\xE2\x80\x93)(?=\d|\$|\xE2\x82[\xAC\xBD]|\xC2[\xA3\xA5]))");
  std::string out = std::regex_replace(text, kMathMinus, " " + std::string(minus) + " ");
  out = std::regex_replace(out, kDashBeforeDigit, "$1" + std::string(minus) + " ");
  // After the amounts of money: "+62 ₽" is then "+" before the amount's words.
  static const std::regex& kPlusBeforeDigit = *new std::regex(R"((^|[\s(\[])\+ ?(?=\S))");
  return std::regex_replace(out, kPlusBeforeDigit, "$1" + std::string(plus) + " ");
}

std::string expand_numero_sign(const std::string& text, std::string_view numero) {
  static const std::regex& kNumero = *new std::regex("\xE2\x84\x96 ?(?=\\d)");
  return replace_all(text, kNumero, [numero](const std::smatch& m) {
    return spaced(m, std::string(numero)) + " ";
  });
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
  std::string out = replace_all(text, kPercent, [&](const std::smatch& m) {
    return m.str(1) + " " + spaced(m, std::string(words.percent));
  });
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
  // Any run of digits not inside a word; more than 15 of them are said one by one.
  static const std::regex& kNumber =
      *new std::regex(R"((^|[^\w.,])(\d+)(?:([.,])(\d+))?(?![\w]|[.,]\d))");
  out = replace_all(out, kNumber, [&](const std::smatch& m) {
    std::string said = m.str(1) + spoken_integer(m.str(2), words.cardinal);
    if (!m[3].matched) return said;
    said += ' ';
    said += m.str(3) == "," ? words.comma : words.point;
    return said + " " + spoken_integer(m.str(4), words.cardinal);
  });
  // What the rule above passed over, being next to a separator ("70,61.4", "euros .18"), is said
  // as it stands, a separator before it by its word; only digits inside a word ("3D", "H.323")
  // stay.
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  auto capital = [](char c) { return c >= 'A' && c <= 'Z'; };
  std::string rest;
  for (std::size_t i = 0; i < out.size();) {
    if (out[i] < '0' || out[i] > '9') {
      rest += out[i++];
      continue;
    }
    std::size_t end = i;
    while (end < out.size() && out[end] >= '0' && out[end] <= '9') ++end;
    const std::string run = out.substr(i, end - i);
    const char before = i > 0 ? out[i - 1] : ' ';
    const bool after_separator = before == '.' || before == ',';
    const bool in_word = (end < out.size() && letter(out[end])) || letter(before) ||
                         (after_separator && i > 1 && capital(out[i - 2]));
    if (in_word) {
      rest += run;
    } else if (after_separator) {
      rest.pop_back();
      rest += std::string(" ") + std::string(before == ',' ? words.comma : words.point) + " " +
              spoken_integer(run, words.cardinal) + " ";
    } else {
      rest += " " + spoken_integer(run, words.cardinal) + " ";
    }
    i = end;
  }
  return rest;
}

std::string spoken_digits(std::string_view digits,
                          const std::function<std::string(std::uint64_t)>& cardinal) {
  std::string out;
  for (char c : digits)
    if (c >= '0' && c <= '9')
      out += (out.empty() ? "" : " ") + cardinal(static_cast<std::uint64_t>(c - '0'));
  return out;
}

std::string spoken_integer(std::string_view digits,
                           const std::function<std::string(std::uint64_t)>& cardinal) {
  if (digits.size() > 15) return spoken_digits(digits, cardinal);
  std::size_t zeros = 0;
  while (zeros + 1 < digits.size() && digits[zeros] == '0') ++zeros;
  std::string out = spoken_digits(digits.substr(0, zeros), cardinal);
  if (!out.empty()) out += ' ';
  return out + cardinal(std::stoull(std::string(digits.substr(zeros))));
}

std::string spaced(const std::smatch& match, const std::string& words) {
  auto touches = [](char c) {
    return std::string_view(" .,;:!?)]}\"'(\[{").find(c) == std::string_view::npos;
  };
  const auto before = match.prefix(), after = match.suffix();
  std::string out;
  if (before.length() > 0 && touches(*(before.second - 1))) out += ' ';
  out += words;
  if (after.length() > 0 && touches(*after.first)) out += ' ';
  return out;
}

std::string collapse_spaces(const std::string& text) {
  static const std::regex& kSpaces = *new std::regex(R"( {2,})");
  std::string out = std::regex_replace(text, kSpaces, " ");
  while (!out.empty() && out.front() == ' ') out.erase(0, 1);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace tts::frontend::detail
