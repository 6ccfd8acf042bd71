// English normalisation of amounts that espeak-ng reads badly: currency ($5M included), times,
// dates (12/25/2024 included), years, units.
#include <string_view>

#include "regex_rules.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend::detail {

namespace {
struct Currency {
  std::string_view symbol, one, many, cent_one, cent_many;
};
constexpr Currency kCurrencies[] = {{"$", "dollar", "dollars", "cent", "cents"},
                                    {"\xC2\xA3", "pound", "pounds", "penny", "pence"},
                                    {"\xE2\x82\xAC", "euro", "euros", "cent", "cents"},
                                    {"\xC2\xA5", "yen", "yen", "", ""},
                                    {"\xE2\x82\xBD", "ruble", "rubles", "kopeck", "kopecks"}};

const Currency& currency_of(const std::string& symbol) {
  for (const Currency& c : kCurrencies)
    if (c.symbol == symbol) return c;
  return kCurrencies[0];
}

// "12", "20", "thousand" (or empty), "$" -> "twelve dollars twenty cents".
std::string say_amount(const std::string& whole, const std::string& fraction,
                       const std::string& scale, const Currency& currency,
                       const std::string& original) {
  unsigned long long units = 0;
  // "$007" is no amount: its zeros stay for espeak-ng to read.
  if (!parse_integer(whole, units) || (whole.size() > 1 && whole[0] == '0')) return original;
  if (!scale.empty()) {  // $2.5 million -> two point five million dollars
    std::string words = en::cardinal(units);
    if (!fraction.empty()) words += " point " + en::digits(fraction);
    return words + " " + scale + " " + std::string(currency.many);
  }
  unsigned long long cents = 0;
  if (fraction.size() > 2 || currency.cent_many.empty()) {
    if (fraction.empty() || currency.cent_many.empty())
      return en::cardinal(units) + (fraction.empty() ? "" : " point " + en::digits(fraction)) +
             " " + std::string(units == 1 && fraction.empty() ? currency.one : currency.many);
    return en::cardinal(units) + " point " + en::digits(fraction) + " " +
           std::string(currency.many);
  }
  if (!fraction.empty()) cents = std::stoull(fraction) * (fraction.size() == 1 ? 10 : 1);
  std::string out;
  if (units > 0 || cents == 0)
    out = en::cardinal(units) + " " + std::string(units == 1 ? currency.one : currency.many);
  if (cents > 0) {
    if (!out.empty()) out += ' ';
    out += en::cardinal(cents) + " " +
           std::string(cents == 1 ? currency.cent_one : currency.cent_many);
  }
  return out;
}

constexpr const char* kMonths[12] = {"January",   "February", "March",    "April",
                                     "May",       "June",     "July",     "August",
                                     "September", "October",  "November", "December"};

std::string full_month(const std::string& name) {
  for (const char* month : kMonths)
    if (std::string_view(month).substr(0, 3) == std::string_view(name).substr(0, 3)) return month;
  return name;
}
}  // namespace

std::string expand_currency(const std::string& text) {
  // Made once and never destroyed (*new): a synthesis still running when its program exits may use
  // it after static destructors have run, until the engine's exit handler stops it.
  // A minus sign (hyphen-minus, U+2212, en dash) at the start of a word before the symbol ("-$5"),
  // between the symbol and the amount ("$-5") or before an amount written first ("-5 €").
  static const std::string kSign = R"((-|\xE2\x88\x92|\xE2\x80\x93))";
  static const std::regex& kPrefix = *new std::regex(
      R"((?:(^|[\s(\[]))" + kSign + R"( ?)?(\$|\xC2\xA3|\xE2\x82\xAC|\xC2\xA5|\xE2\x82\xBD) ?(?:)" +
      kSign +
      R"( ?)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?: (thousand|million|billion|trillion)\b|(k|K|m|M|bn|B)\b)?)");
  static const std::regex& kSuffix = *new std::regex(
      R"((?:(^|[\s(\[]))" + kSign +
      R"( ?|\b)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))? ?(\xE2\x82\xAC|\xC2\xA3|\xE2\x82\xBD))");
  auto signed_amount = [](const std::smatch& m, bool negative, const std::string& said) {
    if (said == m.str(0)) return said;
    return m.str(1) + spaced(m, (negative ? "minus " : "") + said);
  };
  std::string out = replace_all(text, kPrefix, [&](const std::smatch& m) {
    // $5M, $2.5bn, $10k: the scale written as a letter.
    const std::string letter = m.str(8);
    const std::string scale = letter.empty()                   ? m.str(7)
                              : letter == "k" || letter == "K" ? "thousand"
                              : letter == "m" || letter == "M" ? "million"
                                                               : "billion";
    return signed_amount(m, m[2].matched || m[4].matched,
                         say_amount(m.str(5), m.str(6), scale, currency_of(m.str(3)), m.str(0)));
  });
  return replace_all(out, kSuffix, [&](const std::smatch& m) {
    return signed_amount(m, m[2].matched,
                         say_amount(m.str(3), m.str(4), "", currency_of(m.str(5)), m.str(0)));
  });
}

std::string expand_times(const std::string& text) {
  static const std::regex& kClock = *new std::regex(
      R"(\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?: ?([AaPp])\.? ?[Mm]\.?(?![A-Za-z]))?)");
  static const std::regex& kHourOnly =
      *new std::regex(R"(\b(1[0-2]|0?[1-9]) ?([AaPp])\.? ?[Mm]\.?(?![A-Za-z]))");
  auto meridiem = [](const std::string& letter) {
    return std::string(letter == "a" || letter == "A" ? " a m" : " p m");
  };
  std::string out = replace_all(text, kClock, [&](const std::smatch& m) {
    unsigned hour = std::stoul(m.str(1)), minute = std::stoul(m.str(2));
    std::string words = en::cardinal(hour);
    if (minute == 0)
      words += m[3].matched ? "" : (hour > 12 || hour == 0 ? " hundred" : " o'clock");
    else if (minute < 10)
      words += " oh " + en::cardinal(minute);
    else
      words += " " + en::cardinal(minute);
    if (m[3].matched) words += meridiem(m.str(3));
    return words;
  });
  return replace_all(out, kHourOnly, [&](const std::smatch& m) {
    return en::cardinal(std::stoul(m.str(1))) + meridiem(m.str(2));
  });
}

std::string expand_dates(const std::string& text) {
  static const std::string kMonth =
      "(January|February|March|April|May|June|July|August|September|October|November|December|"
      "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)";
  static const std::regex& kMonthDay = *new std::regex(
      "\\b" + kMonth +
      R"(\.? ([12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?\b(?![:.,]\d)(?:,? (1[1-9]\d\d|20\d\d)\b)?)");
  static const std::regex& kDayMonth =
      *new std::regex(R"(\b([12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)? (?:of )?)" + kMonth +
                      R"(\b\.?(?:,? (1[1-9]\d\d|20\d\d)\b)?)");
  static const std::regex& kYear = *new std::regex(
      R"(\b(in|In|since|Since|by|from|From|until|till|of|during|before|after|around|circa|year|to|and|By|Until|During|Before|After|Around|Circa) (1[1-9]\d\d)\b(?![.,]\d| ?%))");
  static const std::regex& kDecade = *new std::regex(R"(\b(1[1-9]\d0|20[0-9]0)'?s\b)");
  // 2024-03-15 (ISO 8601).
  static const std::regex& kIso =
      *new std::regex(R"(\b(1[1-9]\d\d|20\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b(?!-))");
  // 12/25/2024 (the US order), or 25/12/2024 when the first number cannot be a month.
  static const std::regex& kNumeric = *new std::regex(
      R"(\b(0?[1-9]|[12]\d|3[01])/(0?[1-9]|[12]\d|3[01])/(1[1-9]\d\d|20\d\d)\b(?!/))");
  // A date that does not exist (02/31/2024, 2023-02-29) stays as it is written.
  std::string out = replace_all(text, kIso, [](const std::smatch& m) {
    const unsigned year = std::stoul(m.str(1)), month = std::stoul(m.str(2));
    const unsigned day = std::stoul(m.str(3));
    if (!valid_date(day, month, year, 4)) return m.str(0);
    return std::string(kMonths[month - 1]) + " " + en::ordinal(day) + " " + en::year(year);
  });
  out = replace_all(out, kNumeric, [](const std::smatch& m) {
    const unsigned first = std::stoul(m.str(1)), second = std::stoul(m.str(2));
    const unsigned year = std::stoul(m.str(3));
    if (valid_date(second, first, year, 4))
      return std::string(kMonths[first - 1]) + " " + en::ordinal(second) + " " + en::year(year);
    if (valid_date(first, second, year, 4))
      return en::ordinal(first) + " of " + kMonths[second - 1] + " " + en::year(year);
    return m.str(0);
  });
  out = replace_all(out, kMonthDay, [](const std::smatch& m) {
    std::string words = full_month(m.str(1)) + " " + en::ordinal(std::stoul(m.str(2)));
    if (m[3].matched) words += " " + en::year(std::stoul(m.str(3)));
    return words;
  });
  out = replace_all(out, kDayMonth, [](const std::smatch& m) {
    std::string words = en::ordinal(std::stoul(m.str(1))) + " of " + full_month(m.str(2));
    if (m[3].matched) words += " " + en::year(std::stoul(m.str(3)));
    return words;
  });
  out = replace_all(out, kYear, [](const std::smatch& m) {
    return m.str(1) + " " + en::year(std::stoul(m.str(2)));
  });
  return replace_all(out, kDecade,
                     [](const std::smatch& m) { return en::decade(std::stoul(m.str(1))); });
}

std::string expand_units(const std::string& text) {
  struct Unit {
    const char* symbol;
    const char* one;
    const char* many;
  };
  static const Unit kUnits[] = {{"km/h", "kilometer per hour", "kilometers per hour"},
                                {"kph", "kilometer per hour", "kilometers per hour"},
                                {"mph", "mile per hour", "miles per hour"},
                                {"km", "kilometer", "kilometers"},
                                {"cm", "centimeter", "centimeters"},
                                {"mm", "millimeter", "millimeters"},
                                {"m", "meter", "meters"},
                                {"kg", "kilogram", "kilograms"},
                                {"mg", "milligram", "milligrams"},
                                {"g", "gram", "grams"},
                                {"ml", "milliliter", "milliliters"},
                                {"mL", "milliliter", "milliliters"},
                                {"L", "liter", "liters"},
                                {"kHz", "kilohertz", "kilohertz"},
                                {"MHz", "megahertz", "megahertz"},
                                {"GHz", "gigahertz", "gigahertz"},
                                {"Hz", "hertz", "hertz"},
                                {"ft", "foot", "feet"},
                                {"mi", "mile", "miles"},
                                {"lbs", "pound", "pounds"},
                                {"lb", "pound", "pounds"},
                                {"oz", "ounce", "ounces"},
                                {"hrs", "hour", "hours"},
                                {"hr", "hour", "hours"},
                                {"h", "hour", "hours"},
                                {"min", "minute", "minutes"},
                                {"ms", "millisecond", "milliseconds"},
                                {"sec", "second", "seconds"},
                                {"KB", "kilobyte", "kilobytes"},
                                {"MB", "megabyte", "megabytes"},
                                {"GB", "gigabyte", "gigabytes"},
                                {"TB", "terabyte", "terabytes"},
                                {"kW", "kilowatt", "kilowatts"},
                                {"\xC2\xB0"
                                 "C",
                                 "degree Celsius", "degrees Celsius"},
                                {"\xC2\xB0"
                                 "F",
                                 "degree Fahrenheit", "degrees Fahrenheit"},
                                {"\xC2\xB0", "degree", "degrees"}};
  static const std::regex& kQuantity = *new std::regex(
      R"(\b(\d+(?:\.\d+)?) ?(km/h|kph|mph|km|cm|mm|kg|mg|ml|mL|kHz|MHz|GHz|Hz|ft|mi|lbs|lb|oz|hrs|hr|min|ms|sec|KB|MB|GB|TB|kW|\xC2\xB0C|\xC2\xB0F|\xC2\xB0|m|g|L|h)(?![A-Za-z0-9]))");
  static const std::regex& kPercent = *new std::regex(R"((\d) ?%)");
  std::string out = replace_all(text, kQuantity, [](const std::smatch& m) {
    for (const Unit& unit : kUnits)
      if (m.str(2) == unit.symbol) return m.str(1) + " " + (m.str(1) == "1" ? unit.one : unit.many);
    return m.str(0);
  });
  return std::regex_replace(out, kPercent, "$1 percent");
}

}  // namespace tts::frontend::detail
