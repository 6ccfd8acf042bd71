// Number words for the normalisers and SSML say-as, one namespace per language (English: US style,
// no "and"). Each is written from the language's own rules; all are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tts::frontend::en {

// 123 -> "one hundred twenty three"; valid for every uint64_t.
std::string cardinal(std::uint64_t n);
// 23 -> "twenty third".
std::string ordinal(std::uint64_t n);
// 1987 -> "nineteen eighty seven", 1905 -> "nineteen oh five", 1900 -> "nineteen hundred",
// 2004 -> "two thousand four", 2019 -> "twenty nineteen"; other values read as cardinals.
std::string year(std::uint64_t y);
// "1980s" style decades: 1980 -> "nineteen eighties", 2000 -> "two thousands".
std::string decade(std::uint64_t y);
// "409" -> "four zero nine": each digit by name; other characters are skipped.
std::string digits(std::string_view text);
// Plural of a number word ("eighty" -> "eighties", "six" -> "sixes").
std::string plural_number_word(std::string_view word);

}  // namespace tts::frontend::en

namespace tts::frontend {
// The grammatical gender a number agrees with: Spanish "un euro" / "una libra", Russian
// "один рубль" / "одна копейка" / "одно евро" ...
enum class Gender { kMasculine, kFeminine, kNeuter };
}  // namespace tts::frontend

namespace tts::frontend::es {
// 21 -> "veintiuno" (counting); before a noun: "veintiún" (masculine), "veintiuna" (feminine);
// 1e6 -> "un millón", 2e9 -> "dos mil millones", 1e12 -> "un billón" (long scale). < 1e15.
enum class Form { kCounting, kBeforeMasculine, kBeforeFeminine };
std::string cardinal(std::uint64_t n, Form form = Form::kCounting);
// 1 -> "primero" ("primer" before a masculine noun), 3 -> "tercero", 21 -> "vigésimo primero";
// feminine "primera"; above 100 the cardinal.
std::string ordinal(std::uint64_t n, Gender gender = Gender::kMasculine, bool before_noun = false);
}  // namespace tts::frontend::es

namespace tts::frontend::fr {
// 21 -> "vingt et un", 71 -> "soixante et onze", 80 -> "quatre-vingts", 81 -> "quatre-vingt-un",
// 200 -> "deux cents", 80000 -> "quatre-vingt mille"; feminine "une". < 1e15.
std::string cardinal(std::uint64_t n, Gender gender = Gender::kMasculine);
// 1 -> "premier"/"première", 2 -> "deuxième", 5 -> "cinquième", 9 -> "neuvième",
// 21 -> "vingt et unième", 80 -> "quatre-vingtième".
std::string ordinal(std::uint64_t n, Gender gender = Gender::kMasculine);
}  // namespace tts::frontend::fr

namespace tts::frontend::it {
// 21 -> "ventuno", 23 -> "ventitré", 28 -> "ventotto", 1234 -> "milleduecentotrentaquattro",
// 2e6 -> "due milioni"; feminine "una", before a noun "un" (masculine). < 1e15.
enum class Form { kCounting, kBeforeMasculine, kBeforeFeminine };
std::string cardinal(std::uint64_t n, Form form = Form::kCounting);
// 1 -> "primo"/"prima", 11 -> "undicesimo", 23 -> "ventitreesimo", 1000 -> "millesimo".
std::string ordinal(std::uint64_t n, Gender gender = Gender::kMasculine);
}  // namespace tts::frontend::it

namespace tts::frontend::ru {
// Nominative: 1 -> "один"/"одна"/"одно", 2 -> "два"/"две", 21 -> "двадцать один",
// 1000 -> "одна тысяча", 2000 -> "две тысячи", 5e6 -> "пять миллионов". < 1e15.
std::string cardinal(std::uint64_t n, Gender gender = Gender::kMasculine);
// The form of a noun counted by n: 1, 21 -> one ("рубль"); 2-4, 22 -> few ("рубля");
// 0, 5-20, 25 -> many ("рублей").
enum class Plural { kOne, kFew, kMany };
Plural plural_of(std::uint64_t n);
// Ordinal in a case: nominative (masculine "пятый", feminine "пятая", neuter "пятое"), genitive
// ("пятого", "пятой"), prepositional ("пятом"). Only the last word declines:
// 2024 genitive -> "две тысячи двадцать четвёртого".
enum class Case { kNominative, kGenitive, kPrepositional };
std::string ordinal(std::uint64_t n, Gender gender = Gender::kMasculine,
                    Case grammatical_case = Case::kNominative);
}  // namespace tts::frontend::ru
