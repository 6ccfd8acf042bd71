// Italian text rules (each checked against espeak-ng -v it). Every number is spelled here:
// espeak-ng's own reading of digits differs from the same words written out ("2024" as three words
// [dˈue mˈiːla ventikwˈatːro], the word as one; tests/frontend_language_phonemes_test.cpp).
//   numbers   21 -> ventuno, 1.234 -> milleduecentotrentaquattro, 3,5 -> tre virgola cinque,
//             75 % -> settantacinque per cento
//             -5, −5 -> meno cinque (espeak drops the hyphen)
//   currency  3,50 € -> tre euro e cinquanta centesimi, 1 € -> un euro, 1.000.000 € -> un milione
//             di euro (espeak says "tre virgola cinquanta euro")
//   dates     15/03/2024 -> quindici marzo duemilaventiquattro, 1/5/2024 -> primo maggio ...
//   times     14:30 -> quattordici e trenta, 14:05 -> quattordici e cinque, 14:00 -> quattordici
//             (espeak says "quattordici e zero cinque")
//   ordinals  1º 1ª 1° 2° (before a non-letter; not 20°C) -> primo prima primo secondo
//             (espeak says "due gradi")
//   titles    Sig. Sig.ra Dott. Dott.ssa Prof. Ing. Avv. ecc. es. p.es. n. tel. pag. ...
#include "regex_rules.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend::it {

namespace {
using namespace detail;

std::string money(const Amount& a) {
  static constexpr CurrencyWords kWords[] = {
      {"EUR", "euro", "euro", "centesimo", "centesimi", false},
      {"USD", "dollaro", "dollari", "centesimo", "centesimi", false},
      {"MXN", "peso", "pesos", "centavo", "centavos", false},
      {"GBP", "sterlina", "sterline", "penny", "pence", true},
      {"RUB", "rublo", "rubli", "copeco", "copechi", false},
      {"JPY", "yen", "yen", "", "", false}};
  const CurrencyWords& w = currency_words(kWords, a);
  const int cents = spoken_cents(a, w);
  std::string out;
  if (a.whole > 0 || cents == 0) {
    out = cardinal(a.whole, w.feminine ? Form::kBeforeFeminine : Form::kBeforeMasculine) + " ";
    if (a.whole % 1'000'000 == 0 && a.whole > 0) out += "di ";  // un milione di euro
    out += a.whole == 1 ? w.one : w.many;
  }
  if (cents > 0)
    out += std::string(out.empty() ? "" : " e ") +
           cardinal(static_cast<unsigned>(cents), Form::kBeforeMasculine) + " " +
           (cents == 1 ? w.cent_one : w.cent_many);
  return out;
}

constexpr const char* kMonths[12] = {"gennaio",   "febbraio", "marzo",    "aprile",
                                     "maggio",    "giugno",   "luglio",   "agosto",
                                     "settembre", "ottobre",  "novembre", "dicembre"};

const std::vector<Abbreviation>& abbreviations() {
  static const std::vector<Abbreviation>& kTable = *new std::vector<Abbreviation>{
      {"Sig.", "signor"},        {"Sig.ra", "signora"},   {"Sig.na", "signorina"},
      {"Sigg.", "signori"},      {"Dott.", "dottor"},     {"Dott.ssa", "dottoressa"},
      {"Dr.", "dottor"},         {"Prof.", "professor"},  {"Prof.ssa", "professoressa"},
      {"Ing.", "ingegner"},      {"Avv.", "avvocato"},    {"Geom.", "geometra"},
      {"ecc.", "eccetera"},      {"es.", "esempio"},      {"p.es.", "per esempio"},
      {"p. es.", "per esempio"}, {"n.", "numero"},        {"tel.", "telefono"},
      {"Tel.", "telefono"},      {"pag.", "pagina"},      {"pagg.", "pagine"},
      {"ca.", "circa"},          {"S.p.A.", "esse pi a"}, {"c.so", "corso"}};
  return kTable;
}

// Units of measure after a number ("1 km" -> "un chilometro", "2 h" -> "due ore"), and common
// counted nouns, whose gender the number takes ("1 settimana" -> "una settimana", "1 anno" -> "un
// anno"); "una ora" is then elided to "un'ora". Not "ora" itself: "premi 1 ora" is "press 1 now".
const UnitRule& units() {
  static const UnitRule& kRule = *new UnitRule(
      [] {
        std::vector<UnitWords> words{
            {"km", "chilometro", "chilometri", false},
            {"m", "metro", "metri", false},
            {"cm", "centimetro", "centimetri", false},
            {"mm", "millimetro", "millimetri", false},
            {"kg", "chilogrammo", "chilogrammi", false},
            {"g", "grammo", "grammi", false},
            {"mg", "milligrammo", "milligrammi", false},
            {"l", "litro", "litri", false},
            {"L", "litro", "litri", false},
            {"ml", "millilitro", "millilitri", false},
            {"mL", "millilitro", "millilitri", false},
            {"km/h", "chilometro orario", "chilometri orari", false},
            {"m/s", "metro al secondo", "metri al secondo", false},
            {"m\xC2\xB2", "metro quadrato", "metri quadrati", false},
            {"km\xC2\xB2", "chilometro quadrato", "chilometri quadrati", false},
            {"m\xC2\xB3", "metro cubo", "metri cubi", false},
            {"h", "ora", "ore", true},
            {"min", "minuto", "minuti", false}};
        words = with_counted_nouns(
            std::move(words), true,
            {"volta",   "volte",  "ore",     "settimana", "settimane",  "persona",
             "persone", "casa",   "case",    "pagina",    "pagine",     "notte",
             "notti",   "donna",  "donne",   "ragazza",   "ragazze",    "cosa",
             "cose",    "parola", "parole",  "città",     "lingua",     "lingue",
             "stella",  "stelle", "domanda", "domande",   "tonnellata", "tonnellate"});
        return with_counted_nouns(
            std::move(words), false,
            {"anno",     "anni",    "giorno",  "giorni",   "mese",     "mesi",   "minuto",
             "minuti",   "secondo", "secondi", "euro",     "punto",    "punti",  "libro",
             "libri",    "uomo",    "uomini",  "bambino",  "bambini",  "chilo",  "chili",
             "metro",    "metri",   "litro",   "litri",    "grado",    "gradi",  "abitante",
             "abitanti", "posto",   "posti",   "voto",     "voti",     "gol",    "paese",
             "paesi",    "piano",   "piani",   "capitolo", "capitoli", "secolo", "secoli"});
      }(),
      ".",
      [](std::uint64_t n, bool feminine) {
        return cardinal(n, feminine ? Form::kBeforeFeminine : Form::kBeforeMasculine);
      },
      "di ");
  return kRule;
}
}  // namespace

std::string normalize(std::string_view sentence) {
  std::string text = expand_numero_sign(std::string(sentence), "numero");
  text = expand_money(text, money, "meno");
  text = expand_minus_signs(text, "meno", "più");
  text = expand_numeric_dates(text, [](unsigned d, unsigned m, unsigned y, int) {
    return (d == 1 ? std::string("primo") : cardinal(d)) + " " + kMonths[m - 1] + " " + cardinal(y);
  });
  text = expand_clock_times(text, false, [](unsigned h, int m) {
    std::string out = cardinal(h, Form::kBeforeFeminine);  // l'una, le ventuno
    if (m > 0) out += " e " + cardinal(static_cast<unsigned>(m));
    return out;
  });
  // 1º 1ª, and 1° where it is not a temperature or an angle (20°C, 45° 30').
  static const std::regex& kOrdinal =
      *new std::regex(R"(\b(\d{1,3})(\xC2\xBA|\xC2\xAA|\xC2\xB0(?! ?[CFK\d']))(?![A-Za-z]))");
  text = replace_all(text, kOrdinal, [](const std::smatch& m) {
    return ordinal(std::stoul(m.str(1)),
                   m.str(2) == "\xC2\xAA" ? Gender::kFeminine : Gender::kMasculine);
  });
  text = expand_abbreviations(text, abbreviations());
  text = expand_degrees(text, "gradi");
  text = units().apply(text);
  static const std::regex& kOneHour = *new std::regex(R"(\buna ora\b)");
  text = std::regex_replace(text, kOneHour, "un'ora");  // elided before the vowel
  static const NumberWords& kNumbers = *new NumberWords{
      ".", "virgola", "punto", "per cento", [](std::uint64_t n) { return cardinal(n); }};
  text = expand_numbers(text, kNumbers);
  return collapse_spaces(text);
}

}  // namespace tts::frontend::it
