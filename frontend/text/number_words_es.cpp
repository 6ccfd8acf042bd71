// Spanish number words (Real Academia Española's spelling: "veintiuno", "dieciséis", "ciento",
// long scale "billón" = 10^12).
#include "tts/frontend/number_words.h"

namespace tts::frontend::es {

namespace {
constexpr const char* kUnits[20] = {"cero",   "uno",       "dos",        "tres",      "cuatro",
                                    "cinco",  "seis",      "siete",      "ocho",      "nueve",
                                    "diez",   "once",      "doce",       "trece",     "catorce",
                                    "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve"};
constexpr const char* kTwenties[10] = {"veinte",       "veintiuno",   "veintidós",  "veintitrés",
                                       "veinticuatro", "veinticinco", "veintiséis", "veintisiete",
                                       "veintiocho",   "veintinueve"};
constexpr const char* kTens[10] = {"",          "",        "",        "treinta", "cuarenta",
                                   "cincuenta", "sesenta", "setenta", "ochenta", "noventa"};
constexpr const char* kHundreds[10] = {
    "",           "ciento",      "doscientos",  "trescientos", "cuatrocientos",
    "quinientos", "seiscientos", "setecientos", "ochocientos", "novecientos"};

void append(std::string& out, const std::string& word) {
  if (word.empty()) return;
  if (!out.empty()) out += ' ';
  out += word;
}

// "uno" at the end of a number agrees with what follows: "un" before a masculine noun (and before
// "mil", "millones"), "una" before a feminine one; "veintiuno" likewise ("veintiún").
std::string agree(std::string words, Form form) {
  if (form == Form::kCounting) return words;
  auto ends_with = [&](std::string_view tail) {
    return words.size() >= tail.size() &&
           words.compare(words.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("veintiuno")) {
    words.resize(words.size() - 3);
    return words + (form == Form::kBeforeFeminine ? "una" : "ún");
  }
  if (ends_with("uno") && (words.size() == 3 || words[words.size() - 4] == ' ')) {
    words.resize(words.size() - 3);
    return words + (form == Form::kBeforeFeminine ? "una" : "un");
  }
  return words;
}

std::string below_thousand(unsigned n, Form form) {
  std::string out;
  const unsigned h = n / 100, r = n % 100;
  if (h == 1 && r == 0) return "cien";
  if (h > 0) {
    std::string hundreds = kHundreds[h];
    if (form == Form::kBeforeFeminine && h > 1)  // "doscientas libras"
      hundreds.replace(hundreds.size() - 2, 1, "a");
    append(out, hundreds);
  }
  if (r == 0) return out;
  if (r < 20) {
    append(out, kUnits[r]);
  } else if (r < 30) {
    append(out, kTwenties[r - 20]);
  } else {
    append(out, kTens[r / 10]);
    if (r % 10) append(out, std::string("y ") + kUnits[r % 10]);
  }
  return agree(out, form);
}

// 0 < n < 10^6.
std::string below_million(unsigned n, Form form) {
  std::string out;
  const unsigned thousands = n / 1000, rest = n % 1000;
  if (thousands == 1) {
    out = "mil";
  } else if (thousands > 1) {
    out = below_thousand(thousands, form == Form::kBeforeFeminine ? form : Form::kBeforeMasculine) +
          " mil";
  }
  if (rest) append(out, below_thousand(rest, form));
  return out;
}
}  // namespace

std::string cardinal(std::uint64_t n, Form form) {
  if (n == 0) return "cero";
  std::string out;
  const std::uint64_t billions = n / 1'000'000'000'000ull;
  const unsigned millions = static_cast<unsigned>(n / 1'000'000 % 1'000'000);
  const unsigned rest = static_cast<unsigned>(n % 1'000'000);
  if (billions == 1) append(out, "un billón");
  if (billions > 1)
    append(out, below_million(static_cast<unsigned>(billions % 1'000'000), Form::kBeforeMasculine) +
                    " billones");
  if (millions == 1) append(out, "un millón");
  if (millions > 1) append(out, below_million(millions, Form::kBeforeMasculine) + " millones");
  if (rest) append(out, below_million(rest, form));
  return out;
}

std::string ordinal(std::uint64_t n, Gender gender, bool before_noun) {
  static constexpr const char* kFirst[10] = {"",       "primero", "segundo", "tercero", "cuarto",
                                             "quinto", "sexto",   "séptimo", "octavo",  "noveno"};
  static constexpr const char* kTenths[10] = {
      "",           "décimo",       "vigésimo",   "trigésimo", "cuadragésimo", "quincuagésimo",
      "sexagésimo", "septuagésimo", "octogésimo", "nonagésimo"};
  static constexpr const char* kTeens[10] = {
      "décimo",       "undécimo",    "duodécimo",     "decimotercero", "decimocuarto",
      "decimoquinto", "decimosexto", "decimoséptimo", "decimoctavo",   "decimonoveno"};
  std::string words;
  if (n == 0 || n > 100) return cardinal(n);
  if (n == 100)
    words = "centésimo";
  else if (n < 10)
    words = kFirst[n];
  else if (n < 20)
    words = kTeens[n - 10];
  else
    words = std::string(kTenths[n / 10]) + (n % 10 ? std::string(" ") + kFirst[n % 10] : "");
  if (gender == Gender::kFeminine) {
    for (std::size_t i = 0; i < words.size(); ++i)
      if (words[i] == 'o' && (i + 1 == words.size() || words[i + 1] == ' ')) words[i] = 'a';
    return words;
  }
  if (before_noun) {  // "primer piso", "tercer día"
    for (const char* full : {"primero", "tercero"}) {
      const std::string_view tail(full);
      if (words.size() >= tail.size() &&
          words.compare(words.size() - tail.size(), tail.size(), tail) == 0)
        words.pop_back();
    }
  }
  return words;
}

}  // namespace tts::frontend::es
