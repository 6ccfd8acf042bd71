// Italian number words: one word below a million ("milleduecentotrentaquattro"), tens lose their
// vowel before "uno" and "otto" ("ventuno", "ventotto"), a final "tre" of a compound takes the
// accent ("ventitré", "centotré"), "milioni" and "miliardi" are separate words.
#include "tts/frontend/number_words.h"

namespace tts::frontend::it {

namespace {
constexpr const char* kUnits[20] = {"zero",     "uno",    "due",         "tre",      "quattro",
                                    "cinque",   "sei",    "sette",       "otto",     "nove",
                                    "dieci",    "undici", "dodici",      "tredici",  "quattordici",
                                    "quindici", "sedici", "diciassette", "diciotto", "diciannove"};
constexpr const char* kTens[10] = {"",          "",         "venti",    "trenta",  "quaranta",
                                   "cinquanta", "sessanta", "settanta", "ottanta", "novanta"};

std::string below_hundred(unsigned n) {
  if (n < 20) return kUnits[n];
  std::string tens = kTens[n / 10];
  const unsigned u = n % 10;
  if (u == 1 || u == 8) tens.pop_back();  // ventuno, ventotto
  return u == 0 ? tens : tens + kUnits[u];
}

std::string below_thousand(unsigned n) {
  const unsigned h = n / 100, r = n % 100;
  std::string out;
  if (h == 1) out = "cento";
  if (h > 1) out = std::string(kUnits[h]) + "cento";
  if (h > 0 && r / 10 == 8) out.pop_back();  // centottanta, centottantotto
  if (r) out += below_hundred(r);
  return out;
}

// 0 < n < 10^6, one word.
std::string below_million(unsigned n) {
  const unsigned thousands = n / 1000, rest = n % 1000;
  std::string out;
  if (thousands == 1) out = "mille";
  if (thousands > 1) out = below_thousand(thousands) + "mila";
  if (rest) out += below_thousand(rest);
  return out;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "tre" closing a longer word is written "tré": ventitré, centotré, milletré.
std::string accent_final_tre(std::string words) {
  std::string out;
  std::size_t start = 0;
  while (start <= words.size()) {
    std::size_t end = words.find(' ', start);
    if (end == std::string::npos) end = words.size();
    std::string word = words.substr(start, end - start);
    if (word.size() > 3 && ends_with(word, "tre")) word.replace(word.size() - 1, 1, "é");
    out += (out.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out;
}
}  // namespace

std::string cardinal(std::uint64_t n, Form form) {
  if (n == 0) return "zero";
  struct Scale {
    std::uint64_t value;
    const char* one;
    const char* many;
  };
  static constexpr Scale kScales[] = {{1'000'000'000'000ull, "un bilione", "bilioni"},
                                      {1'000'000'000ull, "un miliardo", "miliardi"},
                                      {1'000'000ull, "un milione", "milioni"}};
  std::string out;
  for (const Scale& s : kScales) {
    const unsigned count = static_cast<unsigned>(n / s.value % 1000);
    if (count == 0) continue;
    if (!out.empty()) out += ' ';
    out += count == 1 ? std::string(s.one) : below_thousand(count) + " " + s.many;
  }
  const unsigned rest = static_cast<unsigned>(n % 1'000'000);
  if (rest) {
    if (!out.empty()) out += ' ';
    out += below_million(rest);
  }
  out = accent_final_tre(out);
  if (form != Form::kCounting && ends_with(out, "uno")) {  // "un euro", "ventun anni", "una"
    out.resize(out.size() - 3);
    out += form == Form::kBeforeFeminine ? "una" : "un";
  }
  return out;
}

std::string ordinal(std::uint64_t n, Gender gender) {
  static constexpr const char* kFirst[11] = {"",       "primo",  "secondo", "terzo",
                                             "quarto", "quinto", "sesto",   "settimo",
                                             "ottavo", "nono",   "decimo"};
  std::string words;
  if (n >= 1 && n <= 10) {
    words = kFirst[n];
  } else {
    words = cardinal(n);
    if (ends_with(words, "tré")) {
      words.replace(words.size() - 2, 2, "e");  // ventitreesimo
    } else if (ends_with(words, "mila")) {
      words.replace(words.size() - 4, 4, "mille");  // duemillesimo
    } else if (ends_with(words, "milioni")) {
      words.replace(words.size() - 7, 7, "milione");
    }
    if (!ends_with(words, "sei") && !ends_with(words, "e")) words.pop_back();
    if (ends_with(words, "e") && !ends_with(words, "sei") && !ends_with(words, "tre"))
      words.pop_back();
    words += "esimo";
  }
  if (gender == Gender::kFeminine) words.back() = 'a';
  return words;
}

}  // namespace tts::frontend::it
