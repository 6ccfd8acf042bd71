// Russian number words: cardinals in the nominative with the gender of what is counted ("один
// рубль", "одна копейка", "две тысячи"), the noun form a number takes (рубль / рубля / рублей), and
// ordinals in the nominative, genitive and prepositional, where only the last word declines
// ("две тысячи двадцать четвёртого года").
#include "tts/frontend/number_words.h"

namespace tts::frontend::ru {

namespace {
constexpr const char* kUnits[20] = {"ноль",        "один",       "два",          "три",
                                    "четыре",      "пять",       "шесть",        "семь",
                                    "восемь",      "девять",     "десять",       "одиннадцать",
                                    "двенадцать",  "тринадцать", "четырнадцать", "пятнадцать",
                                    "шестнадцать", "семнадцать", "восемнадцать", "девятнадцать"};
constexpr const char* kTens[10] = {
    "",          "",           "двадцать",  "тридцать",    "сорок",
    "пятьдесят", "шестьдесят", "семьдесят", "восемьдесят", "девяносто"};
constexpr const char* kHundreds[10] = {"",        "сто",      "двести",  "триста",    "четыреста",
                                       "пятьсот", "шестьсот", "семьсот", "восемьсот", "девятьсот"};

void append(std::string& out, const std::string& word) {
  if (word.empty()) return;
  if (!out.empty()) out += ' ';
  out += word;
}

std::string unit(unsigned n, Gender gender) {
  if (n == 1 && gender == Gender::kFeminine) return "одна";
  if (n == 1 && gender == Gender::kNeuter) return "одно";
  if (n == 2 && gender == Gender::kFeminine) return "две";
  return kUnits[n];
}

std::string below_thousand(unsigned n, Gender gender) {
  std::string out = kHundreds[n / 100];
  const unsigned r = n % 100;
  if (r >= 20) {
    append(out, kTens[r / 10]);
    if (r % 10) append(out, unit(r % 10, gender));
  } else if (r > 0) {
    append(out, unit(r, gender));
  }
  return out;
}

const char* noun_form(std::uint64_t n, const char* one, const char* few, const char* many) {
  switch (plural_of(n)) {
    case Plural::kOne:
      return one;
    case Plural::kFew:
      return few;
    default:
      return many;
  }
}

// An ordinal's stem and how it declines.
enum class Declension { kHard, kStressed, kThird };  // пятый, второй, третий
struct Stem {
  std::uint64_t value;
  const char* stem;
  Declension declension;
};
constexpr Stem kStems[] = {{1, "перв", Declension::kHard},
                           {2, "втор", Declension::kStressed},
                           {3, "трет", Declension::kThird},
                           {4, "четвёрт", Declension::kHard},
                           {5, "пят", Declension::kHard},
                           {6, "шест", Declension::kStressed},
                           {7, "седьм", Declension::kStressed},
                           {8, "восьм", Declension::kStressed},
                           {9, "девят", Declension::kHard},
                           {10, "десят", Declension::kHard},
                           {11, "одиннадцат", Declension::kHard},
                           {12, "двенадцат", Declension::kHard},
                           {13, "тринадцат", Declension::kHard},
                           {14, "четырнадцат", Declension::kHard},
                           {15, "пятнадцат", Declension::kHard},
                           {16, "шестнадцат", Declension::kHard},
                           {17, "семнадцат", Declension::kHard},
                           {18, "восемнадцат", Declension::kHard},
                           {19, "девятнадцат", Declension::kHard},
                           {20, "двадцат", Declension::kHard},
                           {30, "тридцат", Declension::kHard},
                           {40, "сороков", Declension::kStressed},
                           {50, "пятидесят", Declension::kHard},
                           {60, "шестидесят", Declension::kHard},
                           {70, "семидесят", Declension::kHard},
                           {80, "восьмидесят", Declension::kHard},
                           {90, "девяност", Declension::kHard},
                           {100, "сот", Declension::kHard},
                           {200, "двухсот", Declension::kHard},
                           {300, "трёхсот", Declension::kHard},
                           {400, "четырёхсот", Declension::kHard},
                           {500, "пятисот", Declension::kHard},
                           {600, "шестисот", Declension::kHard},
                           {700, "семисот", Declension::kHard},
                           {800, "восьмисот", Declension::kHard},
                           {900, "девятисот", Declension::kHard},
                           {1000, "тысячн", Declension::kHard},
                           {2000, "двухтысячн", Declension::kHard},
                           {3000, "трёхтысячн", Declension::kHard},
                           {4000, "четырёхтысячн", Declension::kHard},
                           {5000, "пятитысячн", Declension::kHard},
                           {6000, "шеститысячн", Declension::kHard},
                           {7000, "семитысячн", Declension::kHard},
                           {8000, "восьмитысячн", Declension::kHard},
                           {9000, "девятитысячн", Declension::kHard},
                           {1'000'000, "миллионн", Declension::kHard}};

std::string ending(Declension d, Gender gender, Case c) {
  const bool feminine = gender == Gender::kFeminine;
  if (d == Declension::kThird) {
    if (c == Case::kNominative) return feminine ? "ья" : gender == Gender::kNeuter ? "ье" : "ий";
    if (c == Case::kGenitive) return feminine ? "ьей" : "ьего";
    return feminine ? "ьей" : "ьем";
  }
  if (c == Case::kNominative) {
    if (feminine) return "ая";
    if (gender == Gender::kNeuter) return "ое";
    return d == Declension::kStressed ? "ой" : "ый";
  }
  if (c == Case::kGenitive) return feminine ? "ой" : "ого";
  return feminine ? "ой" : "ом";
}
}  // namespace

Plural plural_of(std::uint64_t n) {
  const std::uint64_t t = n % 100, u = n % 10;
  if (t >= 11 && t <= 14) return Plural::kMany;
  if (u == 1) return Plural::kOne;
  if (u >= 2 && u <= 4) return Plural::kFew;
  return Plural::kMany;
}

std::string cardinal(std::uint64_t n, Gender gender) {
  if (n == 0) return "ноль";
  struct Scale {
    std::uint64_t value;
    Gender gender;
    const char *one, *few, *many;
  };
  static constexpr Scale kScales[] = {
      {1'000'000'000'000ull, Gender::kMasculine, "триллион", "триллиона", "триллионов"},
      {1'000'000'000ull, Gender::kMasculine, "миллиард", "миллиарда", "миллиардов"},
      {1'000'000ull, Gender::kMasculine, "миллион", "миллиона", "миллионов"},
      {1000ull, Gender::kFeminine, "тысяча", "тысячи", "тысяч"}};
  std::string out;
  for (const Scale& s : kScales) {
    const unsigned count = static_cast<unsigned>(n / s.value % 1000);
    if (count == 0) continue;
    append(out, below_thousand(count, s.gender) + " " + noun_form(count, s.one, s.few, s.many));
  }
  if (n % 1000) append(out, below_thousand(static_cast<unsigned>(n % 1000), gender));
  return out;
}

std::string ordinal(std::uint64_t n, Gender gender, Case grammatical_case) {
  // The last component is the one that declines: 2024 = "две тысячи двадцать" + "четвёртого".
  const std::uint64_t t = n % 100, u = n % 10;
  std::uint64_t last = 0;
  if (t >= 1 && t <= 19)
    last = t;
  else if (u != 0)
    last = u;
  else if (t != 0)
    last = t;
  else if (n % 1000 != 0)
    last = n % 1000;
  else if (n % 1'000'000 != 0 && n % 1'000'000 <= 9000)
    last = n % 1'000'000;
  else if (n == 1'000'000)
    last = n;
  for (const Stem& s : kStems) {
    if (s.value != last) continue;
    std::string prefix = n > last ? cardinal(n - last) + " " : "";
    if (prefix.rfind("одна тысяча ", 0) == 0) prefix.erase(0, std::string("одна ").size());
    return prefix + s.stem + ending(s.declension, gender, grammatical_case);
  }
  return cardinal(n, gender);  // no ordinal form here (e.g. 12000th): the cardinal
}

}  // namespace tts::frontend::ru
