// French text rules (each checked against espeak-ng -v fr-fr). Every number is spelled here:
// espeak-ng's own reading of digits differs from the same words written out ("80" as [katʁəvˈɛ̃],
// the words as [kˈatʁvˈɛ̃]; tests/frontend_language_phonemes_test.cpp).
//   numbers   80 -> quatre-vingts, 71 -> soixante et onze, 3,5 -> trois virgule cinq,
//             75 % -> soixante-quinze pour cent
//             -5, −5 -> moins cinq (espeak drops the hyphen and reads U+2212 in English)
//   groups    1 000 000 with no-break or narrow no-break spaces -> 1000000
//   currency  3,50 € -> trois euros cinquante, 0,50 € -> cinquante centimes, 1 € -> un euro,
//             2 000 000 € -> deux millions d'euros (espeak says "trois virgule cinquante euro")
//   dates     15/03/2024 -> quinze mars deux mille vingt-quatre, 01/05/2024 -> premier mai ...
//   times     14h30, 14 h 30 -> quatorze heures trente; 14h -> quatorze heures; 1:05 -> une heure
//   cinq ordinals  1er 1re 2e 2ème 2nd XXIe -> premier première deuxième deuxième second
//             (espeak says "deux e", "trois ième")
//   titles    M. MM. Mme Mlle Dr Pr St Ste etc. p. ex. c.-à-d. n° av. bd env. tél. ...
#include "regex_rules.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend::fr {

namespace {
using namespace detail;

std::string money(const Amount& a) {
  static constexpr CurrencyWords kWords[] = {
      {"EUR", "euro", "euros", "centime", "centimes", false},
      {"USD", "dollar", "dollars", "cent", "cents", false},
      {"MXN", "peso", "pesos", "centavo", "centavos", false},
      {"GBP", "livre", "livres", "penny", "pence", true},
      {"RUB", "rouble", "roubles", "kopeck", "kopecks", false},
      {"JPY", "yen", "yens", "", "", false}};
  const CurrencyWords& w = currency_words(kWords, a);
  const Gender gender = w.feminine ? Gender::kFeminine : Gender::kMasculine;
  const int cents = spoken_cents(a, w);
  if (a.whole == 0 && cents > 0)
    return cardinal(static_cast<unsigned>(cents)) + " " + (cents == 1 ? w.cent_one : w.cent_many);
  std::string out = cardinal(a.whole, gender) + " ";
  if (a.whole % 1'000'000 == 0 && a.whole > 0)  // deux millions d'euros, un million de dollars
    out += std::string_view("aeiouy").find(w.many[0]) != std::string_view::npos ? "d'" : "de ";
  out += a.whole == 1 ? w.one : w.many;
  if (cents > 0) out += " " + cardinal(static_cast<unsigned>(cents));  // trois euros cinquante
  return out;
}

constexpr const char* kMonths[12] = {"janvier",   "février", "mars",     "avril",
                                     "mai",       "juin",    "juillet",  "août",
                                     "septembre", "octobre", "novembre", "décembre"};

const std::vector<Abbreviation>& abbreviations() {
  static const std::vector<Abbreviation>& kTable = *new std::vector<Abbreviation>{
      {"M.", "monsieur"},        {"MM.", "messieurs"},     {"Mme", "madame"},
      {"Mmes", "mesdames"},      {"Mlle", "mademoiselle"}, {"Mlles", "mesdemoiselles"},
      {"Dr", "docteur"},         {"Dr.", "docteur"},       {"Pr", "professeur"},
      {"St", "saint"},           {"Ste", "sainte"},        {"etc.", "et cetera"},
      {"p. ex.", "par exemple"}, {"p.ex.", "par exemple"}, {"c.-à-d.", "c'est-à-dire"},
      {"n°", "numéro"},          {"N°", "numéro"},         {"av.", "avenue"},
      {"bd", "boulevard"},       {"env.", "environ"},      {"tél.", "téléphone"},
      {"Tél.", "téléphone"},     {"Cie", "compagnie"},     {"cf.", "confer"}};
  return kTable;
}

// "XIXe siècle" -> "dix-neuvième siècle", "François Ier" -> "François premier"; after a name or a
// word that numbers what follows, the cardinal: "Louis XIV" -> "Louis quatorze", "chapitre V" ->
// "chapitre cinq". (espeak-ng says "quatorze romain", and reads "XIXe" as letters.)
std::optional<std::string> say_roman(const RomanNumeral& r) {
  if (r.suffix == "er" || r.suffix == "re") {
    if (r.value != 1) return std::nullopt;
    return r.suffix == "er" ? "premier" : "première";
  }
  if (!r.suffix.empty()) return ordinal(r.value);
  if (word_is_one_of(r.word_before, {"chapitre", "tome", "acte", "livre", "partie", "titre",
                                     "article", "annexe", "volume", "scène", "saison", "épisode",
                                     "section", "type", "niveau", "phase"}))
    return cardinal(r.value);
  if (r.letters.size() >= 2 && capitalised(r.word_before)) return cardinal(r.value);
  return std::nullopt;
}

// Units of measure after a number ("1 km" -> "un kilomètre", "1,5 km" -> "1,5 kilomètre", the
// singular below 2; "1 min" -> "une minute"), and common feminine counted nouns ("1 fois" -> "une
// fois", "21 personnes" -> "vingt et une personnes"). ("h" is a time of day: expand_clock_times.)
const UnitRule& units() {
  static const UnitRule& kRule = *new UnitRule(
      [] {
        std::vector<UnitWords> words{{"km", "kilomètre", "kilomètres", false},
                                     {"m", "mètre", "mètres", false},
                                     {"cm", "centimètre", "centimètres", false},
                                     {"mm", "millimètre", "millimètres", false},
                                     {"kg", "kilogramme", "kilogrammes", false},
                                     {"g", "gramme", "grammes", false},
                                     {"mg", "milligramme", "milligrammes", false},
                                     {"l", "litre", "litres", false},
                                     {"L", "litre", "litres", false},
                                     {"ml", "millilitre", "millilitres", false},
                                     {"mL", "millilitre", "millilitres", false},
                                     {"km/h", "kilomètre à l'heure", "kilomètres à l'heure", false},
                                     {"m/s", "mètre par seconde", "mètres par seconde", false},
                                     {"m\xC2\xB2", "mètre carré", "mètres carrés", false},
                                     {"km\xC2\xB2", "kilomètre carré", "kilomètres carrés", false},
                                     {"m\xC2\xB3", "mètre cube", "mètres cubes", false},
                                     {"min", "minute", "minutes", true}};
        words = with_counted_nouns(
            std::move(words), true,
            {"fois",     "heure",     "heures",   "semaine",   "semaines", "minute",  "minutes",
             "seconde",  "secondes",  "personne", "personnes", "année",    "années",  "journée",
             "journées", "page",      "pages",    "femme",     "femmes",   "fille",   "filles",
             "voiture",  "voitures",  "maison",   "maisons",   "chose",    "choses",  "ville",
             "villes",   "tonne",     "tonnes",   "place",     "places",   "nuit",    "nuits",
             "question", "questions", "étoile",   "étoiles",   "langue",   "langues", "victoire",
             "victoires"});
        return words;
      }(),
      "",
      [](std::uint64_t n, bool feminine) {
        return cardinal(n, feminine ? Gender::kFeminine : Gender::kMasculine);
      },
      "de ", true);
  return kRule;
}
}  // namespace

std::string normalize(std::string_view sentence) {
  std::string text = expand_numero_sign(std::string(sentence), "numéro");
  text = expand_money(join_digit_groups(text), money, "moins");
  text = expand_minus_signs(text, "moins", "plus");
  text = expand_numeric_dates(text, [](unsigned d, unsigned m, unsigned y, int) {
    return (d == 1 ? std::string("premier") : cardinal(d)) + " " + kMonths[m - 1] + " " +
           cardinal(y);
  });
  text = expand_clock_times(text, true, [](unsigned h, int m) {
    std::string out = cardinal(h, Gender::kFeminine) + (h == 1 ? " heure" : " heures");
    if (m > 0) out += " " + cardinal(static_cast<unsigned>(m), Gender::kFeminine);
    return out;
  });
  // 1er 1re 1ère 2e 2ème 2nd 2nde: the letters end the word.
  static const std::regex& kOrdinal =
      *new std::regex(R"(\b(\d{1,4})(er|re|\xC3\xA8re|e|\xC3\xA8me|nde|nd)(?![A-Za-z0-9]|\xC3))");
  text = replace_all(text, kOrdinal, [](const std::smatch& m) {
    const unsigned long n = std::stoul(m.str(1));
    const std::string mark = m.str(2);
    if (mark == "nd") return std::string(n == 2 ? "second" : m.str(0));
    if (mark == "nde") return std::string(n == 2 ? "seconde" : m.str(0));
    const bool feminine = mark == "re" || mark == "\xC3\xA8re";
    if ((mark == "er" || feminine) && n != 1) return m.str(0);
    return ordinal(n, feminine ? Gender::kFeminine : Gender::kMasculine);
  });
  text = expand_abbreviations(text, abbreviations());
  static const std::regex& kNumero = *new std::regex(R"(\b[Nn]o (?=\d))");  // le no 5
  text = std::regex_replace(text, kNumero, "numéro ");
  text = expand_roman_numerals(text, {"e", "er", "re", "ème", "eme", "\xE1\xB5\x89"}, say_roman);
  text = expand_degrees(text, "degrés");
  text = units().apply(text);
  static const NumberWords& kNumbers = *new NumberWords{
      ".", "virgule", "point", "pour cent", [](std::uint64_t n) { return cardinal(n); }};
  text = expand_numbers(text, kNumbers);
  return collapse_spaces(text);
}

}  // namespace tts::frontend::fr
