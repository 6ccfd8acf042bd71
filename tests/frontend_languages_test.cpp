// The text rules of Spanish, French, Italian and Russian: number words and normalised sentences
// against goldens written from each language's own grammar (RAE, Académie française, Accademia
// della Crusca, Russian school grammar), not from this code's output; the choice of rules by
// language tag; and the sentence splitter's abbreviations per language. English has its own
// suite (frontend_normalizer_test.cpp). Phonemes: frontend_language_phonemes_test.cpp.
#include <gtest/gtest.h>

#include "tts/frontend/language.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"
#include "tts/frontend/sentence_splitter.h"

using namespace tts::frontend;

TEST(SpanishNumbers, CardinalsAgreeWithWhatTheyCount) {
  EXPECT_EQ(es::cardinal(0), "cero");
  EXPECT_EQ(es::cardinal(16), "dieciséis");
  EXPECT_EQ(es::cardinal(21), "veintiuno");
  EXPECT_EQ(es::cardinal(21, es::Form::kBeforeMasculine), "veintiún");
  EXPECT_EQ(es::cardinal(21, es::Form::kBeforeFeminine), "veintiuna");
  EXPECT_EQ(es::cardinal(22), "veintidós");
  EXPECT_EQ(es::cardinal(31), "treinta y uno");
  EXPECT_EQ(es::cardinal(100), "cien");
  EXPECT_EQ(es::cardinal(101), "ciento uno");
  EXPECT_EQ(es::cardinal(500), "quinientos");
  EXPECT_EQ(es::cardinal(200, es::Form::kBeforeFeminine), "doscientas");
  EXPECT_EQ(es::cardinal(1000), "mil");
  EXPECT_EQ(es::cardinal(1234), "mil doscientos treinta y cuatro");
  EXPECT_EQ(es::cardinal(21000), "veintiún mil");
  EXPECT_EQ(es::cardinal(1'000'000), "un millón");
  EXPECT_EQ(es::cardinal(2'500'000), "dos millones quinientos mil");
  EXPECT_EQ(es::cardinal(1'000'000'000), "mil millones");
  EXPECT_EQ(es::cardinal(1'000'000'000'000), "un billón");
}

TEST(SpanishNumbers, Ordinals) {
  EXPECT_EQ(es::ordinal(1), "primero");
  EXPECT_EQ(es::ordinal(1, Gender::kMasculine, true), "primer");
  EXPECT_EQ(es::ordinal(3, Gender::kMasculine, true), "tercer");
  EXPECT_EQ(es::ordinal(2, Gender::kFeminine), "segunda");
  EXPECT_EQ(es::ordinal(7), "séptimo");
  EXPECT_EQ(es::ordinal(11), "undécimo");
  EXPECT_EQ(es::ordinal(13), "decimotercero");
  EXPECT_EQ(es::ordinal(21), "vigésimo primero");
  EXPECT_EQ(es::ordinal(21, Gender::kFeminine), "vigésima primera");
  EXPECT_EQ(es::ordinal(100), "centésimo");
}

TEST(FrenchNumbers, Cardinals) {
  EXPECT_EQ(fr::cardinal(17), "dix-sept");
  EXPECT_EQ(fr::cardinal(21), "vingt et un");
  EXPECT_EQ(fr::cardinal(21, Gender::kFeminine), "vingt et une");
  EXPECT_EQ(fr::cardinal(22), "vingt-deux");
  EXPECT_EQ(fr::cardinal(70), "soixante-dix");
  EXPECT_EQ(fr::cardinal(71), "soixante et onze");
  EXPECT_EQ(fr::cardinal(77), "soixante-dix-sept");
  EXPECT_EQ(fr::cardinal(80), "quatre-vingts");
  EXPECT_EQ(fr::cardinal(81), "quatre-vingt-un");
  EXPECT_EQ(fr::cardinal(91), "quatre-vingt-onze");
  EXPECT_EQ(fr::cardinal(99), "quatre-vingt-dix-neuf");
  EXPECT_EQ(fr::cardinal(100), "cent");
  EXPECT_EQ(fr::cardinal(200), "deux cents");
  EXPECT_EQ(fr::cardinal(201), "deux cent un");
  EXPECT_EQ(fr::cardinal(1000), "mille");
  EXPECT_EQ(fr::cardinal(80'000), "quatre-vingt mille");
  EXPECT_EQ(fr::cardinal(200'000), "deux cent mille");
  EXPECT_EQ(fr::cardinal(1'000'000), "un million");
  EXPECT_EQ(fr::cardinal(80'000'000), "quatre-vingts millions");
  EXPECT_EQ(fr::cardinal(2'000'000'000), "deux milliards");
}

TEST(FrenchNumbers, Ordinals) {
  EXPECT_EQ(fr::ordinal(1), "premier");
  EXPECT_EQ(fr::ordinal(1, Gender::kFeminine), "première");
  EXPECT_EQ(fr::ordinal(2), "deuxième");
  EXPECT_EQ(fr::ordinal(4), "quatrième");
  EXPECT_EQ(fr::ordinal(5), "cinquième");
  EXPECT_EQ(fr::ordinal(9), "neuvième");
  EXPECT_EQ(fr::ordinal(21), "vingt et unième");
  EXPECT_EQ(fr::ordinal(80), "quatre-vingtième");
  EXPECT_EQ(fr::ordinal(100), "centième");
  EXPECT_EQ(fr::ordinal(1000), "millième");
}

TEST(ItalianNumbers, Cardinals) {
  EXPECT_EQ(it::cardinal(1), "uno");
  EXPECT_EQ(it::cardinal(1, it::Form::kBeforeFeminine), "una");
  EXPECT_EQ(it::cardinal(17), "diciassette");
  EXPECT_EQ(it::cardinal(21), "ventuno");
  EXPECT_EQ(it::cardinal(23), "ventitré");
  EXPECT_EQ(it::cardinal(28), "ventotto");
  EXPECT_EQ(it::cardinal(3), "tre");
  EXPECT_EQ(it::cardinal(103), "centotré");
  EXPECT_EQ(it::cardinal(180), "centottanta");
  EXPECT_EQ(it::cardinal(1000), "mille");
  EXPECT_EQ(it::cardinal(1234), "milleduecentotrentaquattro");
  EXPECT_EQ(it::cardinal(2024), "duemilaventiquattro");
  EXPECT_EQ(it::cardinal(1'000'000), "un milione");
  EXPECT_EQ(it::cardinal(3'200'000), "tre milioni duecentomila");
  EXPECT_EQ(it::cardinal(2'000'000'000), "due miliardi");
}

TEST(ItalianNumbers, Ordinals) {
  EXPECT_EQ(it::ordinal(1), "primo");
  EXPECT_EQ(it::ordinal(1, Gender::kFeminine), "prima");
  EXPECT_EQ(it::ordinal(10), "decimo");
  EXPECT_EQ(it::ordinal(11), "undicesimo");
  EXPECT_EQ(it::ordinal(21), "ventunesimo");
  EXPECT_EQ(it::ordinal(23), "ventitreesimo");
  EXPECT_EQ(it::ordinal(26), "ventiseiesimo");
  EXPECT_EQ(it::ordinal(100), "centesimo");
  EXPECT_EQ(it::ordinal(1000), "millesimo");
  EXPECT_EQ(it::ordinal(2000), "duemillesimo");
}

TEST(RussianNumbers, CardinalsWithGender) {
  EXPECT_EQ(ru::cardinal(1), "один");
  EXPECT_EQ(ru::cardinal(1, Gender::kFeminine), "одна");
  EXPECT_EQ(ru::cardinal(1, Gender::kNeuter), "одно");
  EXPECT_EQ(ru::cardinal(2, Gender::kFeminine), "две");
  EXPECT_EQ(ru::cardinal(21), "двадцать один");
  EXPECT_EQ(ru::cardinal(40), "сорок");
  EXPECT_EQ(ru::cardinal(1000), "одна тысяча");
  EXPECT_EQ(ru::cardinal(2000), "две тысячи");
  EXPECT_EQ(ru::cardinal(5000), "пять тысяч");
  EXPECT_EQ(ru::cardinal(11'000), "одиннадцать тысяч");
  EXPECT_EQ(ru::cardinal(21'000), "двадцать одна тысяча");
  EXPECT_EQ(ru::cardinal(1234), "одна тысяча двести тридцать четыре");
  EXPECT_EQ(ru::cardinal(1'000'000), "один миллион");
  EXPECT_EQ(ru::cardinal(3'000'000), "три миллиона");
  EXPECT_EQ(ru::cardinal(5'000'000'000), "пять миллиардов");
}

TEST(RussianNumbers, NounFormsAndOrdinals) {
  EXPECT_EQ(ru::plural_of(1), ru::Plural::kOne);
  EXPECT_EQ(ru::plural_of(21), ru::Plural::kOne);
  EXPECT_EQ(ru::plural_of(11), ru::Plural::kMany);
  EXPECT_EQ(ru::plural_of(3), ru::Plural::kFew);
  EXPECT_EQ(ru::plural_of(14), ru::Plural::kMany);
  EXPECT_EQ(ru::plural_of(5), ru::Plural::kMany);
  EXPECT_EQ(ru::ordinal(1), "первый");
  EXPECT_EQ(ru::ordinal(2), "второй");
  EXPECT_EQ(ru::ordinal(3, Gender::kFeminine), "третья");
  EXPECT_EQ(ru::ordinal(3, Gender::kMasculine, ru::Case::kGenitive), "третьего");
  EXPECT_EQ(ru::ordinal(15, Gender::kNeuter), "пятнадцатое");
  EXPECT_EQ(ru::ordinal(40), "сороковой");
  EXPECT_EQ(ru::ordinal(2024, Gender::kMasculine, ru::Case::kGenitive),
            "две тысячи двадцать четвёртого");
  EXPECT_EQ(ru::ordinal(1995, Gender::kMasculine, ru::Case::kPrepositional),
            "тысяча девятьсот девяносто пятом");
  EXPECT_EQ(ru::ordinal(2000, Gender::kMasculine, ru::Case::kGenitive), "двухтысячного");
  EXPECT_EQ(ru::ordinal(1900), "тысяча девятисотый");
}

TEST(SpanishText, CurrencyDatesTimesOrdinalsAndTitles) {
  EXPECT_EQ(normalize_text("El Sr. García pagó 3,50 € el 15/03/2024 a las 14:30.", "es-MX"),
            "El señor García pagó tres euros con cincuenta céntimos el quince de marzo de dos "
            "mil veinticuatro a las catorce treinta.");
  EXPECT_EQ(normalize_text("Son $21, 1 € y 3.50 $.", "es"),
            "Son veintiún dólares, un euro y tres dólares con cincuenta centavos.");
  EXPECT_EQ(normalize_text("Cuesta 1.000.000 €.", "es"), "Cuesta un millón de euros.");
  EXPECT_EQ(normalize_text("Llegó el 1/5/1995 a la 1:15.", "es"),
            "Llegó el primero de mayo de mil novecientos noventa y cinco a la una quince.");
  EXPECT_EQ(normalize_text("A las 13:00 y 9:05.", "es"),
            "A las trece en punto y nueve cero cinco.");
  EXPECT_EQ(normalize_text("El 3.er piso, la 2.ª puerta, el 21.º puesto.", "es"),
            "El tercer piso, la segunda puerta, el vigésimo primero puesto.");
  EXPECT_EQ(normalize_text("La Dra. Pérez vive en EE. UU., p. ej. en Texas, etc.", "es"),
            "La doctora Pérez vive en Estados Unidos, por ejemplo en Texas, etcétera.");
  // Every number is spelled: espeak-ng's reading of digits is not that of the words
  // (frontend_language_phonemes_test). Decimal comma and point, thousands with dots or commas.
  EXPECT_EQ(normalize_text("Hay 16 casas, 3,05 km, 3.5 kg, 1.234.567 y 75 %.", "es"),
            "Hay dieciséis casas, tres coma cero cinco kilómetros, tres punto cinco kilogramos, un "
            "millón "
            "doscientos treinta y cuatro mil quinientos sesenta y siete y setenta y cinco por "
            "ciento.");
  EXPECT_EQ(normalize_text("El H.323 y el 3D.", "es"), "El H.323 y el 3D.");
  EXPECT_EQ(normalize_text("Hace 25 °C, 77 °F y un ángulo de 45°.", "es"),
            "Hace veinticinco grados Celsius, setenta y siete grados Fahrenheit y un ángulo de "
            "cuarenta y cinco grados.");
}

TEST(FrenchText, CurrencyDatesTimesOrdinalsAndTitles) {
  EXPECT_EQ(normalize_text("M. Dupont a payé 3,50 € le 15/03/2024 à 14h30.", "fr-CA"),
            "monsieur Dupont a payé trois euros cinquante le quinze mars deux mille vingt-quatre "
            "à quatorze heures trente.");
  EXPECT_EQ(normalize_text("Le 1er mai, la 1re fois, le 2e, le 3ème et le 21e.", "fr"),
            "Le premier mai, la première fois, le deuxième, le troisième et le vingt et unième.");
  EXPECT_EQ(normalize_text("1 € et 0,50 € et 2 000 000 € et 200 $.", "fr"),
            "un euro et cinquante centimes et deux millions d'euros et deux cents dollars.");
  EXPECT_EQ(normalize_text("À 14 h 05, à 1:05, à 21h.", "fr"),
            "À quatorze heures cinq, à une heure cinq, à vingt et une heures.");
  // Narrow no-break spaces group digits the French way.
  EXPECT_EQ(normalize_text("1\xE2\x80\xAF"
                           "000\xE2\x80\xAF"
                           "000 habitants",
                           "fr"),
            "un million habitants");
  EXPECT_EQ(normalize_text("80, 71, 3,5 et 75 %.", "fr"),
            "quatre-vingts, soixante et onze, trois virgule cinq et soixante-quinze pour cent.");
  EXPECT_EQ(normalize_text("Mme Martin, Dr Roux, etc.", "fr"),
            "madame Martin, docteur Roux, et cetera.");
  EXPECT_EQ(normalize_text("Il fait 25 °C, soit 77°F.", "fr"),
            "Il fait vingt-cinq degrés Celsius, soit soixante-dix-sept degrés Fahrenheit.");
}

TEST(ItalianText, CurrencyDatesTimesOrdinalsAndTitles) {
  EXPECT_EQ(normalize_text("Il Sig. Rossi ha pagato 3,50 € il 15/03/2024 alle 14:30.", "it-IT"),
            "Il signor Rossi ha pagato tre euro e cinquanta centesimi il quindici marzo "
            "duemilaventiquattro alle quattordici e trenta.");
  EXPECT_EQ(normalize_text("Il 1° maggio, la 1ª volta, il 2º posto, a 20°C.", "it"),
            "Il primo maggio, la prima volta, il secondo posto, a venti gradi Celsius.");
  EXPECT_EQ(normalize_text("1.000.000 €, 1 €, 0,01 €; alle 14:05 e alle 14:00, ecc.", "it"),
            "un milione di euro, un euro, un centesimo; alle quattordici e cinque e alle "
            "quattordici, eccetera.");
  EXPECT_EQ(normalize_text("La Dott.ssa Bianchi, p.es. il n. 5.", "it"),
            "La dottoressa Bianchi, per esempio il numero cinque.");
  EXPECT_EQ(normalize_text("21, 1.234, 3,5 e 75 %.", "it"),
            "ventuno, milleduecentotrentaquattro, tre virgola cinque e settantacinque per cento.");
}

TEST(RussianText, NumbersAgreeAndDatesDecline) {
  EXPECT_EQ(normalize_text("Он заплатил 3,50 € 15.03.2024 в 14:30.", "ru-RU"),
            "Он заплатил три евро пятьдесят центов пятнадцатое марта две тысячи двадцать "
            "четвёртого года в четырнадцать тридцать.");
  EXPECT_EQ(normalize_text("В 2024 году, 15 марта 2024 г.", "ru"),
            "В две тысячи двадцать четвёртом году, пятнадцатое марта две тысячи двадцать "
            "четвёртого года.");
  EXPECT_EQ(normalize_text("1 000 000 жителей, 1234567 и 3,25.", "ru"),
            "один миллион жителей, один миллион двести тридцать четыре тысячи пятьсот "
            "шестьдесят семь и три целых двадцать пять сотых.");
  EXPECT_EQ(normalize_text("2,02 ₽, 21 руб., 5 руб. 50 коп., $5.", "ru"),
            "два рубля две копейки, двадцать один рубль, пять рублей пятьдесят копеек, пять "
            "долларов.");
  EXPECT_EQ(normalize_text("75 %, 2,5 %, 1 %, 3-я, 2-й, 10-го, 5 млн, 2 тыс. жителей.", "ru"),
            "семьдесят пять процентов, две целых пять десятых процента, один процент, третья, "
            "второй, десятого, пять миллионов, две тысячи жителей.");
  EXPECT_EQ(normalize_text("Ему 21 год, т. е. в 9:00 и 14:05, ул. Ленина, д. 5, и т. д.", "ru"),
            "Ему двадцать один год, то есть в девять ноль ноль и четырнадцать ноль пять, улица "
            "Ленина, дом пять, и так далее.");
}

// A minus sign is said in the language (espeak-ng drops a hyphen-minus before a number, and reads
// U+2212 with its English name); a dash between digits or after a letter is not a minus sign.
TEST(LanguageText, MinusSignsAreSaidAndDashesBetweenNumbersAreNot) {
  EXPECT_EQ(normalize_text("Hace -5 °C, de noche −12 °C (-3,5 en la costa).", "es"),
            "Hace menos cinco grados Celsius, de noche menos doce grados Celsius (menos tres coma "
            "cinco en la costa).");
  EXPECT_EQ(normalize_text("Il fait -5 °C le jour et –12 °C la nuit.", "fr"),
            "Il fait moins cinq degrés Celsius le jour et moins douze degrés Celsius la nuit.");
  EXPECT_EQ(normalize_text("Fuori ci sono -5 °C, cioè −2 rispetto a ieri.", "it"),
            "Fuori ci sono meno cinque gradi Celsius, cioè meno due rispetto a ieri.");
  EXPECT_EQ(normalize_text("Ночью -12 °C.", "ru"), "Ночью минус двенадцать градусов Цельсия.");
  for (const char* language : {"es", "fr", "it", "ru"}) {
    const std::string said = normalize_text("10-12, 555-1234, A-5, 2024-05-01", language);
    for (const char* minus : {"menos", "moins", "meno", "минус"})
      EXPECT_EQ(said.find(minus), std::string::npos) << language << ": " << said;
  }
}

// A number too long to spell (over 15 digits) is left as digits, in every language, not an error.
// Beyond the number words' range (15 digits) a number is said digit by digit, never left to
// espeak-ng, which reads "1234567890123456" in Spanish as groups joined by "punto".
TEST(LanguageText, ANumberTooLongToSpellIsSaidDigitByDigit) {
  const std::string digits = "1234567890123456789012345";
  for (const char* language : {"en", "es", "fr", "it", "ru"})
    for (const std::string& text : {digits + " %", digits + " °C", "-" + digits, digits + ",5 %"}) {
      std::string said;
      EXPECT_NO_THROW(said = normalize_text(text, language)) << language << ": " << text;
      if (std::string_view(language) == "en")  // English leaves plain numbers to espeak-ng
        EXPECT_NE(said.find(digits), std::string::npos) << said;
      else
        EXPECT_EQ(said.find_first_of("0123456789"), std::string::npos) << language << ": " << said;
    }
  EXPECT_EQ(normalize_text("1.234.567.890.123.456", "es"),
            "uno dos tres cuatro cinco seis siete ocho nueve cero uno dos tres cuatro cinco seis");
  EXPECT_EQ(normalize_text("12345678901234567", "fr"),
            "un deux trois quatre cinq six sept huit neuf zéro un deux trois quatre cinq six sept");
  EXPECT_EQ(normalize_text("1234567890123456 %", "ru"),
            "один два три четыре пять шесть семь восемь девять ноль один два три четыре пять "
            "шесть процентов");
}

// A sign before or after a currency symbol is said in each language's words; a date that does not
// exist is read as numbers; the zeros of "0000-00-00" are all said; "№" is said.
TEST(LanguageText, SignsDatesZerosAndTheNumeroSignLoseNothing) {
  EXPECT_EQ(normalize_text("-$5, $-5 y €-3,50.", "es"),
            "menos cinco dólares, menos cinco dólares y menos tres euros con cincuenta céntimos.");
  EXPECT_EQ(normalize_text("-$5, $-5 et €-3,50.", "fr"),
            "moins cinq dollars, moins cinq dollars et moins trois euros cinquante.");
  EXPECT_EQ(normalize_text("-$5, $-5 e €-3,50.", "it"),
            "meno cinque dollari, meno cinque dollari e meno tre euro e cinquanta centesimi.");
  EXPECT_EQ(normalize_text("-$5, $-5 и €-3,50.", "ru"),
            "минус пять долларов, минус пять долларов и минус три евро пятьдесят центов.");
  EXPECT_EQ(normalize_text("31/02/2024", "es"), "treinta y uno/cero dos/dos mil veinticuatro");
  EXPECT_EQ(normalize_text("29/02/2023", "fr"), "vingt-neuf/zéro deux/deux mille vingt-trois");
  EXPECT_EQ(normalize_text("29/02/2024", "fr"), "vingt-neuf février deux mille vingt-quatre");
  EXPECT_EQ(normalize_text("31/04/2024", "it"), "trentuno/zero quattro/duemilaventiquattro");
  EXPECT_EQ(normalize_text("30.02.2024", "ru"), "тридцать.ноль два.две тысячи двадцать четыре");
  EXPECT_EQ(normalize_text("0000-00-00", "es"), "cero cero cero cero-cero cero-cero cero");
  EXPECT_EQ(normalize_text("0000-00-00", "fr"), "zéro zéro zéro zéro-zéro zéro-zéro zéro");
  EXPECT_EQ(normalize_text("0000-00-00", "ru"), "ноль ноль ноль ноль-ноль ноль-ноль ноль");
  EXPECT_EQ(normalize_text("№ 5 y №7", "es"), "número cinco y número siete");
  EXPECT_EQ(normalize_text("№ 5", "fr"), "numéro cinq");
  EXPECT_EQ(normalize_text("№ 5", "it"), "numero cinque");
  EXPECT_EQ(normalize_text("№ 5", "ru"), "номер пять");
  EXPECT_EQ(normalize_text("+5 y 007", "es"), "más cinco y cero cero siete");
}

// Russian numbers written with a case ending: decades as plural ordinals, small cardinals in the
// genitive.
TEST(RussianText, DecadesAndGenitivesWrittenWithTheirEnding) {
  EXPECT_EQ(normalize_text("В 1990-х и в 2000-х, 90-е годы; для 3-х человек, 5-ти и 8-ми.", "ru"),
            "В тысяча девятьсот девяностых и в двухтысячных, девяностые годы; для трёх человек, "
            "пяти и восьми.");
}

// Russian degrees agree with the number as any counted noun does (1 градус, 2 градуса,
// 5 градусов; a fraction takes the genitive singular), after a Latin or a Cyrillic C.
TEST(RussianText, DegreesAgreeWithTheNumber) {
  EXPECT_EQ(normalize_text("Вчера 1 °С, сегодня 2 °C, завтра 25°C, а в среднем 2,5 °C.", "ru"),
            "Вчера один градус Цельсия, сегодня два градуса Цельсия, завтра двадцать пять "
            "градусов Цельсия, а в среднем две целых пять десятых градуса Цельсия.");
  EXPECT_EQ(normalize_text("Угол 90°, 21° и 451 °F.", "ru"),
            "Угол девяносто градусов, двадцать один градус и четыреста пятьдесят один градус "
            "Фаренгейта.");
}

// Roman numerals as each language reads them (espeak-ng spells them as letters, or adds "romain").
TEST(LanguageText, RomanNumeralsAreReadAsEachLanguageReadsThem) {
  // French: the ordinal with its suffix, otherwise the cardinal after a name or a numbered word.
  EXPECT_EQ(normalize_text("Au XIXe siècle, sous Louis XIV et François Ier, chapitre V.", "fr"),
            "Au dix-neuvième siècle, sous Louis quatorze et François premier, chapitre cinq.");
  // Spanish (RAE): centuries and kings as ordinals up to ten and cardinals above.
  EXPECT_EQ(
      normalize_text("En el siglo V y el siglo XIX, Felipe II y Alfonso XIII; capítulo IV.", "es"),
      "En el siglo quinto y el siglo diecinueve, Felipe segundo y Alfonso trece; capítulo "
      "cuatro.");
  // Russian: the ordinal agrees with "век"; a monarch's with his name in the nominative.
  EXPECT_EQ(normalize_text("В XIX веке, до XVIII века; XX век. Пётр I и Николай II.", "ru"),
            "В девятнадцатом веке, до восемнадцатого века; двадцатый век. Пётр первый и Николай "
            "второй.");
  // Not numerals: parts of longer words, and invalid spellings.
  EXPECT_EQ(normalize_text("VIXEN y XVIIII.", "es"), "VIXEN y XVIIII.");
}

// Units of measure after a number take the number's agreement: the unit's gender ("veintiún
// kilogramos", "veintiuna horas", "une minute"), its number (French singular below two), and in
// Russian the three forms and the genitive singular after a fraction.
TEST(LanguageText, UnitsAgreeWithTheirNumber) {
  EXPECT_EQ(normalize_text("Pesa 1 kg, 21 kg y 0,5 L; va a 120 km/h durante 1 h y 21 h.", "es"),
            "Pesa un kilogramo, veintiún kilogramos y cero coma cinco litros; va a ciento veinte "
            "kilómetros por hora durante una hora y veintiuna horas.");
  EXPECT_EQ(normalize_text("Son 1.000.000 km, no 5G ni 3D.", "es"),
            "Son un millón de kilómetros, no 5G ni 3D.");
  // A closing quote may follow the unit; a superscript digit makes another unit.
  EXPECT_EQ(normalize_text("«Pesa 5 kg», mide 5 cm².", "es"),
            "«Pesa cinco kilogramos», mide cinco cm².");
  EXPECT_EQ(normalize_text("«Рост 75 %», 25° C.", "ru"),
            "«Рост семьдесят пять процентов», двадцать пять градусов Цельсия.");
  EXPECT_EQ(normalize_text("1 kg, 1,5 km, 21 min et 120 km/h.", "fr"),
            "un kilogramme, un virgule cinq kilomètre, vingt et une minutes et cent vingt "
            "kilomètres à l'heure.");
  EXPECT_EQ(normalize_text("1 kg, 1 h, 2 h e 3 m².", "it"),
            "un chilogrammo, un'ora, due ore e tre metri quadrati.");
  EXPECT_EQ(normalize_text("1 кг, 2 кг, 5 кг, 2,5 км, 1 мин, 21 м² и 120 км/ч.", "ru"),
            "один килограмм, два килограмма, пять килограммов, две целых пять десятых километра, "
            "одна минута, двадцать один квадратный метр и сто двадцать километров в час.");
}

// A number before a common counted noun takes the noun's gender: Spanish apocope before a
// masculine noun and the feminine form ("veintiún años", "una semana", "doscientas mil personas"),
// French "une", Italian "un"/"una" (elided "un'ora"), Russian "одна"/"две" and neuter "одно".
TEST(LanguageText, NumbersTakeTheGenderOfCommonCountedNouns) {
  EXPECT_EQ(normalize_text("Tiene 21 años; 1 semana, 200.000 personas y 31 días.", "es"),
            "Tiene veintiún años; una semana, doscientas mil personas y treinta y un días.");
  EXPECT_EQ(normalize_text("1 fois, 21 personnes et 1 an.", "fr"),
            "une fois, vingt et une personnes et un an.");
  EXPECT_EQ(normalize_text("1 settimana, 1 anno e 1 h.", "it"), "una settimana, un anno e un'ora.");
  // "ora" is also "now": an Asterisk prompt says "premi 1 ora", press one now.
  EXPECT_EQ(normalize_text("Premi 1 ora.", "it"), "Premi uno ora.");
  EXPECT_EQ(normalize_text("1 неделя, 2 недели, 21 неделя, 1 место и 2 места.", "ru"),
            "одна неделя, две недели, двадцать одна неделя, одно место и два места.");
}

// Spanish twelve-hour times with the part of the day, French "no" before a number, ISO dates,
// Russian "г." after "в" as "году".
TEST(LanguageText, TwelveHourTimesNumeroAndTheYearAfterV) {
  EXPECT_EQ(normalize_text("Abre a las 9 a. m. y cierra a las 5:30 p.m.; Dña. Ana.", "es"),
            "Abre a las nueve de la mañana y cierra a las cinco treinta de la tarde; doña Ana.");
  EXPECT_EQ(normalize_text("Le no 5.", "fr"), "Le numéro cinq.");
  // ISO 8601 dates, in each language's own reading of a date.
  EXPECT_EQ(normalize_text("Publicado el 2024-03-15.", "es"),
            "Publicado el quince de marzo de dos mil veinticuatro.");
  EXPECT_EQ(normalize_text("Опубликовано 2024-03-15.", "ru"),
            "Опубликовано пятнадцатое марта две тысячи двадцать четвёртого года.");
  EXPECT_EQ(normalize_text("В 2000 г. и с 1995 г.", "ru"),
            "В двухтысячном году и с тысяча девятьсот девяносто пятого года.");
}

TEST(LanguageTags, ChooseRulesByPrimarySubtag) {
  EXPECT_EQ(text_rules_for("en-US"), TextRules::kEnglish);
  EXPECT_EQ(text_rules_for("en_gb"), TextRules::kEnglish);
  EXPECT_EQ(text_rules_for("es-419"), TextRules::kSpanish);
  EXPECT_EQ(text_rules_for("ES-mx"), TextRules::kSpanish);
  EXPECT_EQ(text_rules_for("fr-CA"), TextRules::kFrench);
  EXPECT_EQ(text_rules_for("it"), TextRules::kItalian);
  EXPECT_EQ(text_rules_for("ru-RU"), TextRules::kRussian);
  EXPECT_EQ(text_rules_for("de"), TextRules::kNone);
  EXPECT_EQ(text_rules_for("eng"), TextRules::kNone);
  EXPECT_EQ(primary_language("en-US"), "en");
  EXPECT_EQ(bcp47_casing("en-us"), "en-US");
  EXPECT_EQ(bcp47_casing("es-419"), "es-419");
  EXPECT_EQ(bcp47_casing("en-gb-x-rp"), "en-GB-x-rp");
  EXPECT_EQ(bcp47_casing("sr_latn_rs"), "sr-Latn-RS");
  EXPECT_TRUE(looks_like_bcp47("es-MX"));
  EXPECT_TRUE(looks_like_bcp47("es-419"));
  EXPECT_FALSE(looks_like_bcp47("e"));
  EXPECT_FALSE(looks_like_bcp47("en-"));
  EXPECT_FALSE(looks_like_bcp47("en_US"));
  EXPECT_FALSE(looks_like_bcp47("english"));
  // A language without rules of ours is left alone; English rules are not applied to it.
  EXPECT_EQ(normalize_text("Dr. Müller zahlt 5 € am 15.03.2024.", "de"),
            "Dr. Müller zahlt 5 € am 15.03.2024.");
}

TEST(LanguageSentences, EachLanguageKnowsItsAbbreviations) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_sentences("La Sra. Pérez llegó. El Dr. Gómez no.", "es"),
            V({"La Sra. Pérez llegó.", "El Dr. Gómez no."}));
  EXPECT_EQ(split_sentences("Compró pan, leche, etc. Después se fue.", "es-MX"),
            V({"Compró pan, leche, etc.", "Después se fue."}));
  EXPECT_EQ(split_sentences("Mme Roux et M. Dupont sont là. Ils partent.", "fr"),
            V({"Mme Roux et M. Dupont sont là.", "Ils partent."}));
  EXPECT_EQ(split_sentences("Il Dott. Rossi e il Sig. Bianchi. Poi basta.", "it"),
            V({"Il Dott. Rossi e il Sig. Bianchi.", "Poi basta."}));
  EXPECT_EQ(split_sentences("Он живёт в г. Москва на ул. Ленина. Она тоже.", "ru"),
            V({"Он живёт в г. Москва на ул. Ленина.", "Она тоже."}));
  EXPECT_EQ(split_sentences("Яблоки, груши и т. д. Потом мы ушли.", "ru"),
            V({"Яблоки, груши и т. д.", "Потом мы ушли."}));
  // English lists for English: "Sra." is no English title.
  EXPECT_EQ(split_sentences("See Sra. Lopez.", "en").size(), 2u);
}

TEST(LanguageSsml, SayAsSpeaksTheVoicesLanguage) {
  EXPECT_EQ(*spell_cardinal(71, "fr-FR"), "soixante et onze");
  EXPECT_EQ(*spell_ordinal(3, "ru"), "третий");
  EXPECT_EQ(*spell_cardinal(21, "en-us"), "twenty one");
  EXPECT_FALSE(spell_cardinal(21, "de").has_value());
}
