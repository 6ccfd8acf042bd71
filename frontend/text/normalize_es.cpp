// Spanish text rules (each checked against espeak-ng -v es-419). Every number is spelled here:
// espeak-ng's own reading of digits differs from the same words written out (its stress and vowels:
// "16" as [djˌɛsisˈeɪs], the word as [djˌesisˈeis]; tests/frontend_language_phonemes_test.cpp).
//   numbers   21 -> veintiuno, 1.234.567 and 1,234,567 -> un millón doscientos ..., 3,05 -> tres
//             coma cero cinco, 3.5 -> tres punto cinco, 75 % -> setenta y cinco por ciento
//             -5, −5 -> menos cinco (espeak drops the hyphen and reads U+2212 in English)
//   currency  3,50 € -> tres euros con cincuenta céntimos, $21 -> veintiún dólares, 1 € -> un euro
//             (espeak says "uno euro", "tres coma cincuenta euro")
//   dates     15/03/2024 -> quince de marzo de dos mil veinticuatro; 1/5/2024 -> primero de mayo
//   ...
//             (espeak reads the slashes)
//   times     14:30 -> catorce treinta, 14:05 -> catorce cero cinco, 13:00 -> trece en punto,
//             1:15 -> una quince; 9 a. m. -> nueve de la mañana, 5:30 p.m. -> cinco treinta de la
//             tarde (espeak pauses at each period)
//   ordinals  1.º 2.ª 3.er 21.º -> primero segunda tercer vigésimo primero (espeak says "punto o")
//   titles    Sr. Sra. Srta. Dr. Dra. Ud. Uds. etc. p. ej. núm. n.º Av. EE. UU. aprox. ...
#include "regex_rules.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend::es {

namespace {
using namespace detail;

std::string money(const Amount& a) {
  static constexpr CurrencyWords kWords[] = {
      {"EUR", "euro", "euros", "céntimo", "céntimos", false},
      {"USD", "dólar", "dólares", "centavo", "centavos", false},
      {"MXN", "peso", "pesos", "centavo", "centavos", false},
      {"GBP", "libra", "libras", "penique", "peniques", true},
      {"RUB", "rublo", "rublos", "kopek", "kopeks", false},
      {"JPY", "yen", "yenes", "", "", false}};
  const CurrencyWords& w = currency_words(kWords, a);
  const Form form = w.feminine ? Form::kBeforeFeminine : Form::kBeforeMasculine;
  const int cents = spoken_cents(a, w);
  std::string out;
  if (a.whole > 0 || cents == 0) {
    out = cardinal(a.whole, form) + " ";
    if (a.whole % 1'000'000 == 0 && a.whole > 0) out += "de ";  // un millón de euros
    out += a.whole == 1 ? w.one : w.many;
  }
  if (cents > 0)
    out += std::string(out.empty() ? "" : " con ") +
           cardinal(static_cast<unsigned>(cents), Form::kBeforeMasculine) + " " +
           (cents == 1 ? w.cent_one : w.cent_many);
  return out;
}

constexpr const char* kMonths[12] = {"enero",      "febrero", "marzo",     "abril",
                                     "mayo",       "junio",   "julio",     "agosto",
                                     "septiembre", "octubre", "noviembre", "diciembre"};

const std::vector<Abbreviation>& abbreviations() {
  static const std::vector<Abbreviation>& kTable =
      *new std::vector<Abbreviation>{{"Sr.", "señor"},
                                     {"Sra.", "señora"},
                                     {"Srta.", "señorita"},
                                     {"Sres.", "señores"},
                                     {"Dr.", "doctor"},
                                     {"Dra.", "doctora"},
                                     {"Lic.", "licenciado"},
                                     {"Ing.", "ingeniero"},
                                     {"Prof.", "profesor"},
                                     {"Ud.", "usted"},
                                     {"Uds.", "ustedes"},
                                     {"Vd.", "usted"},
                                     {"etc.", "etcétera"},
                                     {"Etc.", "etcétera"},
                                     {"p. ej.", "por ejemplo"},
                                     {"p.ej.", "por ejemplo"},
                                     {"núm.", "número"},
                                     {"Núm.", "número"},
                                     {"n.º", "número"},
                                     {"Nº", "número"},
                                     {"nº", "número"},
                                     {"Av.", "avenida"},
                                     {"Avda.", "avenida"},
                                     {"EE. UU.", "Estados Unidos"},
                                     {"EE.UU.", "Estados Unidos"},
                                     {"aprox.", "aproximadamente"},
                                     {"tel.", "teléfono"},
                                     {"Tel.", "teléfono"},
                                     {"pág.", "página"},
                                     {"págs.", "páginas"},
                                     {"Sta.", "santa"},
                                     {"Sto.", "santo"},
                                     {"S.A.", "ese a"},
                                     {"Dña.", "doña"},
                                     {"Cía.", "compañía"},
                                     {"Ltda.", "limitada"},
                                     {"Hnos.", "hermanos"},
                                     {"vs.", "contra"}};
  return kTable;
}

// Centuries, kings and popes as the RAE reads them: ordinals up to ten, cardinals above ("siglo V"
// -> "siglo quinto", "Felipe II" -> "Felipe segundo", "Alfonso XIII" -> "Alfonso trece"), and the
// cardinal after a word that numbers what follows ("capítulo IV" -> "capítulo cuatro"). A name's
// ordinal is masculine. (espeak-ng reads "Felipe II" as "Felipe dos" and "siglo V" as a letter.)
std::optional<std::string> say_roman(const RomanNumeral& r) {
  if (word_is_one_of(r.word_before, {"capítulo", "tomo", "parte", "acto", "volumen", "libro",
                                     "título", "artículo", "anexo", "fase", "nivel", "tipo",
                                     "temporada", "episodio", "escena", "sección"}))
    return cardinal(r.value);
  const bool after_a_name =
      capitalised(r.word_before) &&
      !word_is_one_of(r.word_before, {"el", "la", "los", "las", "un", "una", "en", "de", "del", "y",
                                      "o", "a", "al", "con", "por", "para", "su", "sus"});
  if (word_is_one_of(r.word_before, {"siglo", "siglos"}) || after_a_name)
    return r.value <= 10 ? ordinal(r.value) : cardinal(r.value);
  return std::nullopt;
}

// Units of measure after a number ("1 km" -> "un kilómetro", "21 h" -> "veintiuna horas"), and
// common counted nouns, whose gender the number takes ("1 semana" -> "una semana", "21 años" ->
// "veintiún años").
const UnitRule& units() {
  static const UnitRule& kRule = *new UnitRule(
      [] {
        std::vector<UnitWords> words{
            {"km", "kilómetro", "kilómetros", false},
            {"m", "metro", "metros", false},
            {"cm", "centímetro", "centímetros", false},
            {"mm", "milímetro", "milímetros", false},
            {"kg", "kilogramo", "kilogramos", false},
            {"g", "gramo", "gramos", false},
            {"mg", "miligramo", "miligramos", false},
            {"l", "litro", "litros", false},
            {"L", "litro", "litros", false},
            {"ml", "mililitro", "mililitros", false},
            {"mL", "mililitro", "mililitros", false},
            {"km/h", "kilómetro por hora", "kilómetros por hora", false},
            {"m/s", "metro por segundo", "metros por segundo", false},
            {"m\xC2\xB2", "metro cuadrado", "metros cuadrados", false},
            {"km\xC2\xB2", "kilómetro cuadrado", "kilómetros cuadrados", false},
            {"m\xC2\xB3", "metro cúbico", "metros cúbicos", false},
            {"h", "hora", "horas", true},
            {"min", "minuto", "minutos", false}};
        words = with_counted_nouns(
            std::move(words), true,
            {"semana",    "semanas",   "hora",  "horas",   "persona",  "personas", "vez",
             "veces",     "casa",      "casas", "página",  "páginas",  "noche",    "noches",
             "mujer",     "mujeres",   "niña",  "niñas",   "palabra",  "palabras", "línea",
             "líneas",    "cosa",      "cosas", "calle",   "calles",   "ciudad",   "ciudades",
             "tonelada",  "toneladas", "milla", "millas",  "unidad",   "unidades", "pregunta",
             "preguntas", "vida",      "vidas", "botella", "botellas", "taza",     "tazas"});
        return with_counted_nouns(
            std::move(words), false,
            {"año",        "años",      "día",        "días",    "mes",      "meses", "minuto",
             "minutos",    "segundo",   "segundos",   "punto",   "puntos",   "niño",  "niños",
             "hombre",     "hombres",   "libro",      "libros",  "kilo",     "kilos", "metro",
             "metros",     "kilómetro", "kilómetros", "litro",   "litros",   "grado", "grados",
             "euro",       "euros",     "dólar",      "dólares", "peso",     "pesos", "habitante",
             "habitantes", "país",      "países",     "paso",    "pasos",    "piso",  "pisos",
             "capítulo",   "capítulos", "siglo",      "siglos",  "voto",     "votos", "gol",
             "goles",      "partido",   "partidos",   "jugador", "jugadores"});
      }(),
      ".,",
      [](std::uint64_t n, bool feminine) {
        return cardinal(n, feminine ? Form::kBeforeFeminine : Form::kBeforeMasculine);
      },
      "de ");
  return kRule;
}
}  // namespace

std::string normalize(std::string_view sentence) {
  std::string text = expand_numero_sign(std::string(sentence), "número");
  text = expand_money(text, money, "menos");
  text = expand_minus_signs(text, "menos", "más");
  text = expand_numeric_dates(text, [](unsigned d, unsigned m, unsigned y, int) {
    return (d == 1 ? std::string("primero") : cardinal(d)) + " de " + kMonths[m - 1] + " de " +
           cardinal(y);
  });
  // 9 a. m., 5:30 p.m.: the twelve-hour clock, said with the part of the day.
  static const std::regex& kTwelveHour =
      *new std::regex(R"(\b(1[0-2]|0?[1-9])(?::([0-5]\d))? ?([ap])\. ?m\.(?=$|[^\w\x80-\xFF]))");
  text = replace_all(text, kTwelveHour, [](const std::smatch& m) {
    const unsigned h = static_cast<unsigned>(std::stoul(m.str(1)));
    std::string out = cardinal(h, Form::kBeforeFeminine);
    if (m[2].matched && m.str(2) != "00") {
      const unsigned minutes = static_cast<unsigned>(std::stoul(m.str(2)));
      out += std::string(minutes < 10 ? " cero " : " ") + cardinal(minutes);
    }
    if (m.str(3) == "a")
      return out + (h == 12 ? " de la noche" : h <= 5 ? " de la madrugada" : " de la mañana");
    return out + (h == 12 ? " del mediodía" : h <= 7 ? " de la tarde" : " de la noche");
  });
  text = expand_clock_times(text, false, [](unsigned h, int m) {
    std::string out = cardinal(h, Form::kBeforeFeminine);  // la una, las veintiuna
    if (m == 0) return out + " en punto";
    return out + (m < 10 ? " cero " : " ") + cardinal(static_cast<unsigned>(m));
  });
  // 1.º 1º 2.ª 2ª 3.er 3er: the ordinal indicators º ª (not the degree sign °).
  static const std::regex& kOrdinal = *new std::regex(R"(\b(\d{1,3})\.?(\xC2\xBA|\xC2\xAA|er\b))");
  text = replace_all(text, kOrdinal, [](const std::smatch& m) {
    const unsigned long n = std::stoul(m.str(1));
    const std::string mark = m.str(2);
    if (mark == "\xC2\xAA") return ordinal(n, Gender::kFeminine);
    return ordinal(n, Gender::kMasculine, mark == "er");
  });
  text = expand_abbreviations(text, abbreviations());
  text = expand_roman_numerals(text, {}, say_roman);
  text = expand_degrees(text, "grados");
  text = units().apply(text);
  static const NumberWords& kNumbers = *new NumberWords{
      ".,", "coma", "punto", "por ciento", [](std::uint64_t n) { return cardinal(n); }};
  text = expand_numbers(text, kNumbers);
  return collapse_spaces(text);
}

}  // namespace tts::frontend::es
