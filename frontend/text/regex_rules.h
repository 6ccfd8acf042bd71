// Regex rewriting helpers for the normaliser (internal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace tts::frontend::detail {

using Rewrite = std::function<std::string(const std::smatch&)>;

// Replaces every match of `pattern` in `text` by `rewrite(match)`. A match that swallowed the
// sentence's final period ("3 p.m.") gives it back when nothing but punctuation follows.
std::string replace_all(const std::string& text, const std::regex& pattern, const Rewrite& rewrite);

// The English rule groups, applied in this order by en::normalize.
std::string expand_urls_and_emails(const std::string& text);
std::string expand_notation(const std::string& text);  // fractions, telephone numbers, #1, ~5
std::string expand_currency(const std::string& text);
std::string expand_times(const std::string& text);
std::string expand_dates(const std::string& text);
std::string expand_units(const std::string& text);
std::string expand_abbreviations(const std::string& text);

// "1,234" -> 1234; false if it does not fit in 15 digits.
bool parse_integer(const std::string& digits, unsigned long long& value);

// Shared by the languages (normalize_shared.cpp).

// A written abbreviation and what is said for it. `written` matches as a whole word: not preceded
// by a letter or digit and, unless it ends in '.', not followed by one. At the end of a sentence a
// matched final period is given back.
struct Abbreviation {
  std::string_view written, spoken;
};
std::string expand_abbreviations(const std::string& text, const std::vector<Abbreviation>& table);

// An amount of money as written in any of the five languages' conventions: "3,50 €", "€3.50",
// "3.50 $", "$1,234.56", "1.234,56 EUR", "1 000 ₽". `currency` is an ISO 4217 code (EUR, USD,
// GBP, RUB, JPY, MXN); `cents` is the fraction in hundredths (-1 when none was written). A minus
// sign before the symbol ("-$5"), between the symbol and the amount ("$-5", "€−3,50") or before an
// amount written first ("-3,50 €") is said as `minus` ("menos", "moins") before `say`'s words.
struct Amount {
  std::uint64_t whole = 0;
  int cents = -1;
  std::string currency;
};
std::string expand_money(const std::string& text,
                         const std::function<std::string(const Amount&)>& say,
                         std::string_view minus);

// A currency's words in a language whose nouns have one singular and one plural: "euro"/"euros",
// "céntimo"/"céntimos" (empty for a currency spoken without cents, as the yen).
struct CurrencyWords {
  const char *code, *one, *many, *cent_one, *cent_many;
  bool feminine;  // the gender the number before it takes (una libra, une livre)
};

// The row of `table` for `a`'s currency (the first row when none matches), and the hundredths
// to say: none when none were written or the currency has no cents.
template <std::size_t N>
const CurrencyWords& currency_words(const CurrencyWords (&table)[N], const Amount& a) {
  for (const CurrencyWords& row : table)
    if (a.currency == row.code) return row;
  return table[0];
}
inline int spoken_cents(const Amount& a, const CurrencyWords& w) {
  return a.cents < 0 || !*w.cent_one ? 0 : a.cents;
}

// Day-first numeric dates, as all four of es, fr, it, ru write them: 15/03/2024, 15.03.2024,
// 15-03-24; and ISO 8601's 2024-03-15. `year_digits` is 2 or 4. A date that does not exist
// (31/02/2024, 29/02/2023, 0000-00-00) is left as it is written, for the number rules.
bool valid_date(unsigned day, unsigned month, unsigned year, int year_digits);
std::string expand_numeric_dates(
    const std::string& text,
    const std::function<std::string(unsigned day, unsigned month, unsigned year, int year_digits)>&
        say);

// 24-hour clock times: 14:30, 9:05 (and, with `french_h`, 14h30, 14 h 30, 14h).
std::string expand_clock_times(const std::string& text, bool french_h,
                               const std::function<std::string(unsigned hour, int minute)>& say);

// Minus signs said as the language's word (`minus`: "menos", "moins", "meno", "минус"): the sign
// U+2212 wherever it stands, and "-5" or "–5" (hyphen-minus, en dash) at the start of a word. A
// dash between digits or after a letter ("10-12", "555-1234", "1-го") is left as it is. A plus
// sign at the start of a word before a digit ("+5") is said as `plus` ("más", "plus").
std::string expand_minus_signs(const std::string& text, std::string_view minus,
                               std::string_view plus);

// The numero sign before a number ("№ 5", "№5") said as `numero` ("número", "numéro", "номер").
std::string expand_numero_sign(const std::string& text, std::string_view numero);

// Temperatures and angles: "20 °C" -> "20 <degrees> Celsius", "45°" -> "45 <degrees>", with
// `degrees` the language's word ("grados", "degrés", "gradi").
std::string expand_degrees(const std::string& text, std::string_view degrees);

// Digit groups separated by spaces, no-break spaces or narrow no-break spaces ("1 000 000") joined
// into one number ("1000000").
std::string join_digit_groups(const std::string& text);

// Every number left in `text` spelled: digit groups of three after one of `group_separators`
// ("1.234.567" with "."; "1,234" with ","), decimals read as the whole part, the separator's word
// ("coma", "virgule"), then the fraction's leading zeros one by one and the rest as a number
// ("3,05" -> "tres coma cero cinco"); "75 %" -> "75" + `percent`. A number's leading zeros are
// said one by one ("007" -> "cero cero siete", "0000" -> four zeros); a number of more than 15
// digits is said digit by digit (spoken_digits), never as a decimal. Digits inside words ("3D",
// "H.323") are left alone.
// `digits` said one by one with `cardinal` ("0042" -> "cero cero cuatro dos"); other characters
// are skipped.
std::string spoken_digits(std::string_view digits,
                          const std::function<std::string(std::uint64_t)>& cardinal);
// A whole number as written, its leading zeros and digits beyond 15 said one by one, the rest by
// `cardinal`: "042" -> "cero cuarenta y dos", "1234567890123456" -> sixteen digit words.
std::string spoken_integer(std::string_view digits,
                           const std::function<std::string(std::uint64_t)>& cardinal);
struct NumberWords {
  std::string_view group_separators;
  std::string_view comma, point;  // the words for a decimal comma and a decimal point
  std::string_view percent;
  std::function<std::string(std::uint64_t)> cardinal;
};
std::string expand_numbers(const std::string& text, const NumberWords& words);

// A Roman numeral written with I, V and X (1 to 39, in its one canonical spelling: "XIX", not
// "XVIIII"), as a whole word, with the words on either side for the language to choose a reading.
struct RomanNumeral {
  unsigned value = 0;
  std::string_view letters;  // "XIX"
  std::string_view suffix;   // one of the language's suffixes that followed it ("e" of "XIXe")
  std::string word_before, word_after;  // the neighbouring words ("" at an edge or a sign)
};
// Whether `word` is written as a name is: a capital, then a small letter ("Louis", "Пётр"; not
// "THE" or "I").
bool capitalised(std::string_view word);
// Whether `word`, its ASCII capitals lowered, is one of `lowercase_words` ("Chapter", "Capítulo").
bool word_is_one_of(std::string_view word, std::initializer_list<std::string_view> lowercase_words);
// Replaces each Roman numeral (its letters and suffix) by what `say` returns for it; one for which
// `say` returns nothing stays as it is. `suffixes` are tried longest first.
std::string expand_roman_numerals(
    const std::string& text, const std::vector<std::string_view>& suffixes,
    const std::function<std::optional<std::string>(const RomanNumeral&)>& say);

// A number and the unit of measure written after it ("1.500 km", "0,5 L", "120 km/h").
struct Measure {
  std::uint64_t whole = 0;  // the integer part, its digit groups joined
  char separator = 0;       // the decimal separator, 0 for a whole number
  std::string fraction;     // the digits after it
  std::size_t unit = 0;     // which of the units was written
};
// The pattern of a number (digit groups after one of `group_separators`, "" for none; a decimal
// part after "." or ",") followed by one of `units`, itself not followed by a letter. Made once
// per language (a regular expression is slow to build).
std::regex measure_pattern(std::string_view group_separators,
                           const std::vector<std::string_view>& units);
// Replaces each measure matched by `pattern` (measure_pattern of the same `units`) by `say`'s
// reading of it.
std::string expand_measures(const std::string& text, const std::regex& pattern,
                            const std::vector<std::string_view>& units,
                            const std::function<std::string(const Measure&)>& say);

// A unit's words in a language whose nouns have one singular and one plural ("kilómetro",
// "kilómetros"), and the gender the number before it takes.
struct UnitWords {
  std::string_view written, one, many;
  bool feminine;
};
// `units` with a counted noun appended for each of `nouns`, as written (its own singular and
// plural: "semana", "semanas"), so that the number before it takes the noun's gender ("1 semana"
// -> "una semana", "21 años" -> "veintiún años") and the noun stays as it is.
std::vector<UnitWords> with_counted_nouns(std::vector<UnitWords> units, bool feminine,
                                          std::initializer_list<std::string_view> nouns);
// Measures in such a language: a whole number spelled by `cardinal` in the unit's gender, the unit
// singular for 1 (below 2 with `singular_below_two`, as in French) and plural otherwise, with
// `of_millions` between whole millions and the unit ("un millón de kilómetros"); a decimal number
// left in digits for the number rule, with the plural (French: the singular below 2).
class UnitRule {
 public:
  using Cardinal = std::function<std::string(std::uint64_t, bool feminine)>;
  UnitRule(std::vector<UnitWords> units, std::string_view group_separators, Cardinal cardinal,
           std::string_view of_millions, bool singular_below_two = false);
  std::string apply(const std::string& text) const;

 private:
  std::vector<UnitWords> units_;
  std::vector<std::string_view> symbols_;
  std::regex pattern_;
  Cardinal cardinal_;
  std::string_view of_millions_;
  bool singular_below_two_;
};

// `words` in place of `match`, with a space on a side where a letter, digit or symbol touches it
// ("5 £6" -> "5 pounds 6", not "pounds6"); punctuation and spaces stay as they are.
std::string spaced(const std::smatch& match, const std::string& words);

// Collapses runs of spaces left by the rules.
std::string collapse_spaces(const std::string& text);

}  // namespace tts::frontend::detail
