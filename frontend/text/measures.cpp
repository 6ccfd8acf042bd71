// Numbers followed by a unit of measure ("5 km", "0,5 L", "120 km/h"), found for the languages
// that say them (regex_rules.h, expand_measures).
#include <algorithm>

#include "regex_rules.h"

namespace tts::frontend::detail {

namespace {
// `written` as a regular expression that matches it literally.
std::string literal(std::string_view written) {
  std::string out;
  for (char c : written) {
    if (std::string_view(R"(\^$.|?*+()[]{}/)").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}
}  // namespace

std::regex measure_pattern(std::string_view group_separators,
                           const std::vector<std::string_view>& units) {
  std::vector<std::string_view> longest_first = units;
  std::stable_sort(longest_first.begin(), longest_first.end(),
                   [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
  std::string alternatives;
  for (std::string_view unit : longest_first)
    alternatives += (alternatives.empty() ? "" : "|") + literal(unit);
  // The whole part: digit groups of three after a first group that is not 0 ("1.500", not
  // "0,125"), or up to 15 digits; then a decimal part; then the unit, not followed by a letter
  // (Latin, accented Latin: lead bytes C3-C5, Cyrillic: D0, D1) or a superscript digit ("cm²"
  // is no "cm"), while a closing quote or a no-break space may follow.
  std::string whole = R"(\d{1,15})";
  if (!group_separators.empty())
    whole = R"([1-9]\d{0,2}(?:[)" + literal(group_separators) + R"(]\d{3})+|)" + whole;
  return std::regex(R"((^|[^\w.,])()" + whole + R"()(?:([.,])(\d{1,15}))? ?()" + alternatives +
                    R"()(?![\w\xC3-\xC5\xD0\xD1]|\xC2[\xB2\xB3\xB9]))");
}

std::string expand_measures(const std::string& text, const std::regex& pattern,
                            const std::vector<std::string_view>& units,
                            const std::function<std::string(const Measure&)>& say) {
  return replace_all(text, pattern, [&](const std::smatch& m) {
    std::string digits;
    for (char c : m.str(2))
      if (c >= '0' && c <= '9') digits += c;
    unsigned long long whole = 0;
    // "007 %": the zeros are said by the number rules.
    if (!parse_integer(digits, whole) || (digits.size() > 1 && digits[0] == '0')) return m.str(0);
    Measure measure;
    measure.whole = whole;
    if (m[3].matched) {
      measure.separator = m.str(3)[0];
      measure.fraction = m.str(4);
    }
    const std::string unit = m.str(5);
    measure.unit =
        static_cast<std::size_t>(std::find(units.begin(), units.end(), unit) - units.begin());
    return m.str(1) + say(measure);
  });
}

std::vector<UnitWords> with_counted_nouns(std::vector<UnitWords> units, bool feminine,
                                          std::initializer_list<std::string_view> nouns) {
  for (std::string_view noun : nouns) units.push_back({noun, noun, noun, feminine});
  return units;
}

UnitRule::UnitRule(std::vector<UnitWords> units, std::string_view group_separators,
                   Cardinal cardinal, std::string_view of_millions, bool singular_below_two)
    : units_(std::move(units)),
      cardinal_(std::move(cardinal)),
      of_millions_(of_millions),
      singular_below_two_(singular_below_two) {
  for (const UnitWords& unit : units_) symbols_.push_back(unit.written);
  pattern_ = measure_pattern(group_separators, symbols_);
}

std::string UnitRule::apply(const std::string& text) const {
  return expand_measures(text, pattern_, symbols_, [this](const Measure& measure) {
    const UnitWords& unit = units_[measure.unit];
    const bool singular = singular_below_two_ ? measure.whole < 2 : measure.whole == 1;
    if (measure.separator != 0)
      return std::to_string(measure.whole) + measure.separator + measure.fraction + " " +
             std::string(singular && singular_below_two_ ? unit.one : unit.many);
    std::string out = cardinal_(measure.whole, unit.feminine) + " ";
    if (measure.whole > 0 && measure.whole % 1'000'000 == 0) out += of_millions_;
    return out + std::string(singular ? unit.one : unit.many);
  });
}

}  // namespace tts::frontend::detail
