// Russian text rules (each checked against espeak-ng -v ru). espeak-ng reads small cardinals but
// not millions ("1234567" comes out as "один тысяча ..."), nor agreement ("2 копейки" as "два
// копейки", "75 %" as "семьдесят пять процент"), so every number is spelled here:
//   numbers   1 000 000 -> один миллион;
//             1234567 -> один миллион двести тридцать четыре тысячи ...;
//             3,5 -> три целых пять десятых; 5 млн -> пять миллионов; 2 тыс. -> две тысячи;
//             -5, −5 -> минус пять
//   currency  3,50 € -> три евро пятьдесят центов;
//             21 ₽, 21 руб. -> двадцать один рубль;
//             2,02 ₽ -> два рубля две копейки; $5 -> пять долларов
//   percent   75 % -> семьдесят пять процентов; 2,5 % -> две целых пять десятых процента
//   degrees   -5 °C -> минус пять градусов Цельсия; 1° -> один градус
//   dates     15.03.2024 -> пятнадцатое марта две тысячи двадцать четвёртого года;
//             15 марта -> пятнадцатое марта;
//             в 2024 году -> в две тысячи двадцать четвёртом году
//   times     14:30 -> четырнадцать тридцать, 14:05 -> четырнадцать ноль пять,
//             9:00 -> девять ноль ноль
//   ordinals  2-й 3-я 5-е 10-го 7-м -> второй третья пятое десятого седьмом;
//             1990-х -> тысяча девятьсот девяностых, 90-е годы -> девяностые годы;
//             3-х -> трёх, 5-ти -> пяти
//   titles    т. е. т. д. т. п. т. к. и др. ул. д. кв. г. им. см. стр. напр. ...
#include "regex_rules.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend::ru {

namespace {
using namespace detail;

const char* form_of(std::uint64_t n, const char* one, const char* few, const char* many) {
  const Plural p = plural_of(n);
  return p == Plural::kOne ? one : p == Plural::kFew ? few : many;
}

std::string money(const Amount& a) {
  struct Words {
    const char *code, *one, *few, *many;
    const char *cent_one, *cent_few, *cent_many;
    Gender cent_gender;
  };
  static constexpr Words kWords[] = {
      {"EUR", "евро", "евро", "евро", "цент", "цента", "центов", Gender::kMasculine},
      {"USD", "доллар", "доллара", "долларов", "цент", "цента", "центов", Gender::kMasculine},
      {"MXN", "песо", "песо", "песо", "сентаво", "сентаво", "сентаво", Gender::kNeuter},
      {"GBP", "фунт", "фунта", "фунтов", "пенс", "пенса", "пенсов", Gender::kMasculine},
      {"RUB", "рубль", "рубля", "рублей", "копейка", "копейки", "копеек", Gender::kFeminine},
      {"JPY", "иена", "иены", "иен", "", "", "", Gender::kFeminine}};
  const Words* w = &kWords[0];
  for (const Words& candidate : kWords)
    if (a.currency == candidate.code) w = &candidate;
  const int cents = a.cents < 0 || !*w->cent_one ? 0 : a.cents;
  const Gender gender = a.currency == "JPY" ? Gender::kFeminine : Gender::kMasculine;
  std::string out;
  if (a.whole > 0 || cents == 0)
    out = cardinal(a.whole, gender) + " " + form_of(a.whole, w->one, w->few, w->many);
  if (cents > 0) {
    const auto c = static_cast<std::uint64_t>(cents);
    out += std::string(out.empty() ? "" : " ") + cardinal(c, w->cent_gender) + " " +
           form_of(c, w->cent_one, w->cent_few, w->cent_many);
  }
  return out;
}

// "3,25" -> "три целых двадцать пять сотых": the fraction counts tenths, hundredths or thousandths.
// A whole part or a fraction too long for these words is said digit by digit after "запятая".
std::string say_cardinal(std::uint64_t n) { return cardinal(n); }
std::string decimal(const std::string& whole_digits, const std::string& fraction) {
  static constexpr const char* kDenominators[3][2] = {
      {"десятая", "десятых"}, {"сотая", "сотых"}, {"тысячная", "тысячных"}};
  if (fraction.size() > 3 || whole_digits.size() > 15 ||
      (whole_digits.size() > 1 && whole_digits[0] == '0'))
    return spoken_integer(whole_digits, say_cardinal) + " запятая " +
           spoken_digits(fraction, say_cardinal);
  const std::uint64_t whole = std::stoull(whole_digits);
  const std::uint64_t part = std::stoull(fraction);
  const bool one_whole = plural_of(whole) == Plural::kOne;
  const bool one_part = plural_of(part) == Plural::kOne;
  return cardinal(whole, Gender::kFeminine) + (one_whole ? " целая " : " целых ") +
         cardinal(part, Gender::kFeminine) + " " +
         kDenominators[fraction.size() - 1][one_part ? 0 : 1];
}

constexpr const char* kMonthsGenitive[12] = {"января",   "февраля", "марта",  "апреля",
                                             "мая",      "июня",    "июля",   "августа",
                                             "сентября", "октября", "ноября", "декабря"};
const std::string kMonthAlternatives =
    "(января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)";
// A Cyrillic letter continues the word (its UTF-8 lead bytes are 0xD0 and 0xD1).
const std::string kNotCyrillic = R"((?![\xD0\xD1]))";

const std::vector<Abbreviation>& abbreviations() {
  static const std::vector<Abbreviation>& kTable =
      *new std::vector<Abbreviation>{{"т. е.", "то есть"},
                                     {"т.е.", "то есть"},
                                     {"т. д.", "так далее"},
                                     {"т.д.", "так далее"},
                                     {"т. п.", "тому подобное"},
                                     {"т.п.", "тому подобное"},
                                     {"т. к.", "так как"},
                                     {"т.к.", "так как"},
                                     {"др.", "другие"},
                                     {"ул.", "улица"},
                                     {"д.", "дом"},
                                     {"кв.", "квартира"},
                                     {"г.", "город"},
                                     {"им.", "имени"},
                                     {"см.", "смотри"},
                                     {"стр.", "страница"},
                                     {"напр.", "например"},
                                     {"проф.", "профессор"},
                                     {"акад.", "академик"},
                                     {"руб.", "рублей"},
                                     {"коп.", "копеек"},
                                     {"тыс.", "тысяч"},
                                     {"млн", "миллионов"},
                                     {"млрд", "миллиардов"}};
  return kTable;
}

// "XIX век" -> "девятнадцатый век", "в XIX веке" -> "в девятнадцатом веке", "XX века" ->
// "двадцатого века"; a monarch after a name in the nominative: "Пётр I" -> "Пётр первый".
// (espeak-ng spells the letters in English.)
std::optional<std::string> say_roman(const RomanNumeral& r) {
  if (r.word_after == "век") return ordinal(r.value);
  if (r.word_after == "века") return ordinal(r.value, Gender::kMasculine, Case::kGenitive);
  if (r.word_after == "веке") return ordinal(r.value, Gender::kMasculine, Case::kPrepositional);
  if (!capitalised(r.word_before)) return std::nullopt;
  // A masculine name in the nominative ends in a consonant, "й" or "ь" (Пётр, Николай, Игорь).
  static constexpr std::string_view kVowels[] = {"а", "е", "ё", "и", "о", "у", "ы", "э", "ю", "я"};
  for (std::string_view vowel : kVowels)
    if (r.word_before.size() >= vowel.size() &&
        r.word_before.compare(r.word_before.size() - vowel.size(), vowel.size(), vowel) == 0)
      return std::nullopt;
  return ordinal(r.value);
}

// Units of measure, per cent and degrees after a number, agreeing with it: "1 км" -> "один
// километр", "2 км" -> "два километра", "5 км" -> "пять километров", "2,5 %" -> "две целых пять
// десятых процента" (a fraction takes the genitive singular), "2 °С" -> "два градуса Цельсия";
// and common counted nouns, whose gender the number takes.
struct RussianUnit {
  std::string_view written;
  const char *one, *few, *many, *of_fraction;
  Gender gender;
};
// Common feminine and neuter counted nouns, as written, whose gender the number takes: "1 неделя"
// -> "одна неделя", "2 недели" -> "две недели", "1 место" -> "одно место".
void add_counted_nouns(std::vector<RussianUnit>& units, Gender gender,
                       std::initializer_list<const char*> nouns) {
  for (const char* noun : nouns) units.push_back({noun, noun, noun, noun, noun, gender});
}

const std::vector<RussianUnit>& units() {
  static const std::vector<RussianUnit>& kUnits = *new std::vector<RussianUnit>([] {
    std::vector<RussianUnit> units{
        {"км", "километр", "километра", "километров", "километра", Gender::kMasculine},
        {"м", "метр", "метра", "метров", "метра", Gender::kMasculine},
        {"см", "сантиметр", "сантиметра", "сантиметров", "сантиметра", Gender::kMasculine},
        {"мм", "миллиметр", "миллиметра", "миллиметров", "миллиметра", Gender::kMasculine},
        {"кг", "килограмм", "килограмма", "килограммов", "килограмма", Gender::kMasculine},
        {"мг", "миллиграмм", "миллиграмма", "миллиграммов", "миллиграмма", Gender::kMasculine},
        {"л", "литр", "литра", "литров", "литра", Gender::kMasculine},
        {"мл", "миллилитр", "миллилитра", "миллилитров", "миллилитра", Gender::kMasculine},
        {"км/ч", "километр в час", "километра в час", "километров в час", "километра в час",
         Gender::kMasculine},
        {"м/с", "метр в секунду", "метра в секунду", "метров в секунду", "метра в секунду",
         Gender::kMasculine},
        {"м\xC2\xB2", "квадратный метр", "квадратных метра", "квадратных метров",
         "квадратного метра", Gender::kMasculine},
        {"км\xC2\xB2", "квадратный километр", "квадратных километра", "квадратных километров",
         "квадратного километра", Gender::kMasculine},
        {"ч", "час", "часа", "часов", "часа", Gender::kMasculine},
        {"мин", "минута", "минуты", "минут", "минуты", Gender::kFeminine},
        {"%", "процент", "процента", "процентов", "процента", Gender::kMasculine},
        // Degrees: "°" alone, or with a Latin or Cyrillic C, or F, after it.
        {"\xC2\xB0", "градус", "градуса", "градусов", "градуса", Gender::kMasculine},
        {"\xC2\xB0"
         "C",
         "градус Цельсия", "градуса Цельсия", "градусов Цельсия", "градуса Цельсия",
         Gender::kMasculine},
        {"\xC2\xB0 C", "градус Цельсия", "градуса Цельсия", "градусов Цельсия", "градуса Цельсия",
         Gender::kMasculine},
        {"\xC2\xB0С", "градус Цельсия", "градуса Цельсия", "градусов Цельсия", "градуса Цельсия",
         Gender::kMasculine},
        {"\xC2\xB0 С", "градус Цельсия", "градуса Цельсия", "градусов Цельсия", "градуса Цельсия",
         Gender::kMasculine},
        {"\xC2\xB0"
         "F",
         "градус Фаренгейта", "градуса Фаренгейта", "градусов Фаренгейта", "градуса Фаренгейта",
         Gender::kMasculine},
        {"\xC2\xB0 F", "градус Фаренгейта", "градуса Фаренгейта", "градусов Фаренгейта",
         "градуса Фаренгейта", Gender::kMasculine}};
    add_counted_nouns(
        units, Gender::kFeminine,
        {"неделя",  "недели",  "недель",  "минута",   "минуты",   "минут",    "секунда", "секунды",
         "секунд",  "штука",   "штуки",   "штук",     "страница", "страницы", "страниц", "книга",
         "книги",   "книг",    "машина",  "машины",   "машин",    "женщина",  "женщины", "женщин",
         "ночь",    "ночи",    "ночей",   "квартира", "квартиры", "квартир",  "комната", "комнаты",
         "комнат",  "строка",  "строки",  "строк",    "глава",    "главы",    "глав",    "команда",
         "команды", "команд",  "страна",  "страны",   "стран",    "задача",   "задачи",  "задач",
         "школа",   "школы",   "школ",    "улица",    "улицы",    "улиц",     "игра",    "игры",
         "игр",     "попытка", "попытки", "попыток",  "ошибка",   "ошибки",   "ошибок",  "тонна",
         "тонны",   "тонн",    "партия",  "партии",   "партий"});
    add_counted_nouns(
        units, Gender::kNeuter,
        {"место",  "места",  "мест",     "слово",   "слова",     "слов",      "окно",      "окна",
         "окон",   "письмо", "письма",   "писем",   "сообщение", "сообщения", "сообщений", "число",
         "числа",  "чисел",  "очко",     "очка",    "очков",     "яблоко",    "яблока",    "яблок",
         "дерево", "дерева", "деревьев", "задание", "задания",   "заданий"});
    return units;
  }());
  return kUnits;
}

std::vector<std::string_view> unit_symbols() {
  std::vector<std::string_view> symbols;
  for (const RussianUnit& unit : units()) symbols.push_back(unit.written);
  return symbols;
}
}  // namespace

std::string normalize(std::string_view sentence) {
  std::string text = join_digit_groups(std::string(sentence));
  // "руб." and "р." after an amount are the rouble sign; "коп." its kopecks.
  static const std::regex& kRoubles =
      *new std::regex(R"((\d) ?(?:руб\.|р\.)(?: ?(\d{1,2}) ?коп\.)?)");
  text = replace_all(text, kRoubles, [](const std::smatch& m) {
    return m.str(1) + (m[2].matched ? "," + m.str(2) : "") + " \xE2\x82\xBD";
  });
  text = expand_numero_sign(text, "номер");
  text = expand_money(text, money, "минус");
  text = expand_minus_signs(text, "минус", "плюс");
  text = expand_numeric_dates(text, [](unsigned d, unsigned m, unsigned y, int digits) {
    std::string out = ordinal(d, Gender::kNeuter) + " " + kMonthsGenitive[m - 1];
    if (digits == 4)
      out += " " + ordinal(y, Gender::kMasculine, Case::kGenitive) + " года";
    else
      out += " " + cardinal(y);
    return out;
  });
  static const std::regex& kDayMonth =
      *new std::regex(R"(\b([12]?\d|3[01]) )" + kMonthAlternatives + kNotCyrillic);
  text = replace_all(text, kDayMonth, [](const std::smatch& m) {
    return ordinal(std::stoul(m.str(1)), Gender::kNeuter) + " " + m.str(2);
  });
  // "в 2000 г." is "в двухтысячном году": after "в" the abbreviation stands for "году".
  static const std::regex& kYear = *new std::regex(
      R"((^|[^\w\x80-\xFF])((?:в|В|во|Во) )?(\d{4}) ?(года|году|год|г\.))" + kNotCyrillic);
  text = replace_all(text, kYear, [](const std::smatch& m) {
    const unsigned long y = std::stoul(m.str(3));
    const std::string in = m.str(2), word = m.str(4);
    const std::string before = m.str(1) + in;
    if (word == "году" || (word == "г." && !in.empty()))
      return before + ordinal(y, Gender::kMasculine, Case::kPrepositional) + " году";
    if (word == "год") return before + ordinal(y) + " год";
    return before + ordinal(y, Gender::kMasculine, Case::kGenitive) + " года";
  });
  text = expand_clock_times(text, false, [](unsigned h, int m) {
    return cardinal(h) +
           (m == 0   ? " ноль ноль"
            : m < 10 ? " ноль "
                     : " ") +
           (m == 0 ? std::string() : cardinal(static_cast<std::uint64_t>(m)));
  });
  // Decades: "в 1990-х" -> "в тысяча девятьсот девяностых", "90-е годы" -> "девяностые годы".
  static const std::regex& kDecade =
      *new std::regex(R"(\b([1-9]\d{0,2}0)-(?:(х)|е(?= год)))" + kNotCyrillic);
  text = replace_all(text, kDecade, [](const std::smatch& m) {
    std::string said = ordinal(std::stoull(m.str(1)), Gender::kMasculine, Case::kGenitive);
    said.resize(said.size() - std::string_view("ого").size());  // every decade's ends so
    return said + (m[2].matched ? "ых" : "ые");
  });
  // A cardinal's genitive written with its ending: "2-х" -> "двух", "5-ти" -> "пяти".
  static const std::regex& kGenitive =
      *new std::regex(R"(\b(?:([234])-х|([5-9]|1\d|20|30)-(?:ти|ми)))" + kNotCyrillic);
  text = replace_all(text, kGenitive, [](const std::smatch& m) {
    static constexpr const char* kTwoToFour[] = {"двух", "трёх", "четырёх"};
    if (m[1].matched) return std::string(kTwoToFour[m.str(1)[0] - '2']);
    const std::uint64_t n = std::stoull(m.str(2));
    if (n == 8) return std::string("восьми");
    std::string said = cardinal(n);  // пять, одиннадцать, двадцать: "ь" becomes "и"
    said.resize(said.size() - std::string_view("ь").size());
    return said + "и";
  });
  static const std::regex& kOrdinal =
      *new std::regex(R"(\b(\d{1,7})-(ый|ой|ий|й|ая|я|ое|е|ого|го|ом|м))" + kNotCyrillic);
  text = replace_all(text, kOrdinal, [](const std::smatch& m) {
    const std::string e = m.str(2);
    const std::uint64_t n = std::stoull(m.str(1));
    if (e == "ая" || e == "я") return ordinal(n, Gender::kFeminine);
    if (e == "ое" || e == "е") return ordinal(n, Gender::kNeuter);
    if (e == "ого" || e == "го") return ordinal(n, Gender::kMasculine, Case::kGenitive);
    if (e == "ом" || e == "м") return ordinal(n, Gender::kMasculine, Case::kPrepositional);
    return ordinal(n);
  });
  // 5 тыс. / 2 млн / 3 млрд: the scale word agrees with the number.
  static const std::regex& kScale =
      *new std::regex(R"(\b(\d{1,3}) (тыс\.|млн|млрд)\.?)" + kNotCyrillic);
  text = replace_all(text, kScale, [](const std::smatch& m) {
    const std::uint64_t n = std::stoull(m.str(1));
    const std::string s = m.str(2);
    if (s == "тыс.")
      return cardinal(n, Gender::kFeminine) + " " + form_of(n, "тысяча", "тысячи", "тысяч");
    if (s == "млн") return cardinal(n) + " " + form_of(n, "миллион", "миллиона", "миллионов");
    return cardinal(n) + " " + form_of(n, "миллиард", "миллиарда", "миллиардов");
  });
  static const std::vector<std::string_view>& kSymbols = *new auto(unit_symbols());
  static const std::regex& kMeasures = *new std::regex(measure_pattern("", kSymbols));
  text = expand_measures(text, kMeasures, kSymbols, [](const Measure& m) {
    const RussianUnit& unit = units()[m.unit];
    if (m.separator != 0)
      return decimal(std::to_string(m.whole), m.fraction) + " " + unit.of_fraction;
    return cardinal(m.whole, unit.gender) + " " + form_of(m.whole, unit.one, unit.few, unit.many);
  });
  static const std::regex& kDecimal = *new std::regex(R"(\b(\d+),(\d+)\b)");
  text =
      replace_all(text, kDecimal, [](const std::smatch& m) { return decimal(m.str(1), m.str(2)); });
  static const std::regex& kInteger = *new std::regex(R"(\b\d+\b)");
  text = replace_all(text, kInteger,
                     [](const std::smatch& m) { return spoken_integer(m.str(0), say_cardinal); });
  // A per cent sign after a number said digit by digit (too long for the measure rule).
  static const std::regex& kPercentLeft = *new std::regex(R"(([^\d\s]) ?%)");
  text = std::regex_replace(text, kPercentLeft, "$1 процентов ");
  text = expand_abbreviations(text, abbreviations());
  text = expand_roman_numerals(text, {}, say_roman);
  return collapse_spaces(text);
}

}  // namespace tts::frontend::ru
