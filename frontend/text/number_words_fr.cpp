// French number words, traditional spelling (hyphens below a hundred: "vingt-deux", "et" in 21,
// 31 ... 71; "quatre-vingts" and "deux cents" take an s only at the end of the number and before
// "millions", not before "mille").
#include "tts/frontend/number_words.h"

namespace tts::frontend::fr {

namespace {
constexpr const char* kUnits[20] = {"zéro",   "un",    "deux",     "trois",    "quatre",
                                    "cinq",   "six",   "sept",     "huit",     "neuf",
                                    "dix",    "onze",  "douze",    "treize",   "quatorze",
                                    "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf"};
constexpr const char* kTens[7] = {"", "", "vingt", "trente", "quarante", "cinquante", "soixante"};

void append(std::string& out, const std::string& word) {
  if (word.empty()) return;
  if (!out.empty()) out += ' ';
  out += word;
}

std::string unit(unsigned n, Gender gender) {
  if (n == 1 && gender == Gender::kFeminine) return "une";
  return kUnits[n];
}

// 0 < n < 100. `final`: nothing but a noun follows (the s of "quatre-vingts").
std::string below_hundred(unsigned n, Gender gender, bool final) {
  if (n < 20) return unit(n, gender);
  const unsigned t = n / 10, u = n % 10;
  if (t <= 6) {
    if (u == 0) return kTens[t];
    if (u == 1) return std::string(kTens[t]) + " et " + unit(1, gender);
    return std::string(kTens[t]) + "-" + kUnits[u];
  }
  if (t == 7) {
    if (u == 1) return "soixante et onze";
    return std::string("soixante-") + kUnits[10 + u];
  }
  if (t == 8 && u == 0) return final ? "quatre-vingts" : "quatre-vingt";
  if (t == 8) return "quatre-vingt-" + unit(u, gender);
  return std::string("quatre-vingt-") + kUnits[10 + u];
}

std::string below_thousand(unsigned n, Gender gender, bool final) {
  const unsigned h = n / 100, r = n % 100;
  std::string out;
  if (h == 1) out = "cent";
  if (h > 1) out = std::string(kUnits[h]) + " cent" + (r == 0 && final ? "s" : "");
  if (r) append(out, below_hundred(r, gender, final));
  return out;
}
}  // namespace

std::string cardinal(std::uint64_t n, Gender gender) {
  if (n == 0) return "zéro";
  struct Scale {
    std::uint64_t value;
    const char* one;
    const char* many;
  };
  static constexpr Scale kScales[] = {{1'000'000'000'000ull, "billion", "billions"},
                                      {1'000'000'000ull, "milliard", "milliards"},
                                      {1'000'000ull, "million", "millions"}};
  std::string out;
  for (const Scale& s : kScales) {
    const unsigned count = static_cast<unsigned>(n / s.value % 1000);
    if (count == 0) continue;
    append(out,
           below_thousand(count, Gender::kMasculine, true) + " " + (count == 1 ? s.one : s.many));
  }
  const unsigned thousands = static_cast<unsigned>(n / 1000 % 1000);
  const unsigned rest = static_cast<unsigned>(n % 1000);
  if (thousands == 1) append(out, "mille");
  if (thousands > 1) append(out, below_thousand(thousands, Gender::kMasculine, false) + " mille");
  if (rest) append(out, below_thousand(rest, gender, true));
  return out;
}

std::string ordinal(std::uint64_t n, Gender gender) {
  if (n == 1) return gender == Gender::kFeminine ? "première" : "premier";
  std::string words = cardinal(n);
  const std::size_t split = words.find_last_of(" -");
  const std::size_t start = split == std::string::npos ? 0 : split + 1;
  std::string last = words.substr(start);
  words.resize(start);
  if (last == "cinq") return words + "cinquième";
  if (last == "neuf") return words + "neuvième";
  if (last.back() == 's' && last != "trois" && last != "six") last.pop_back();  // cents, vingts
  if (last.back() == 'e') last.pop_back();  // quatre, onze, trente, mille
  return words + last + "ième";
}

}  // namespace tts::frontend::fr
