// Text normalisation: rewrites, before phonemisation, what libespeak-ng reads badly in a language.
// What espeak-ng reads well (plain numbers, decimals, ordinals like "4th", percentages in most
// languages) is left to it, so the output may still hold digits. One set of rules per language,
// each in its own file: English here (normalize_en*.cpp), Spanish, French, Italian and Russian in
// normalize_es.cpp, normalize_fr.cpp, normalize_it.cpp and normalize_ru.cpp, whose heads list what
// they rewrite and what they leave to espeak-ng (docs/languages.md).
//
// English rules (each checked against `espeak-ng -v en-us -x`):
//   currency   $5.20 -> five dollars twenty cents, £3 -> three pounds, €10 -> ten euros, 5 € too
//              (espeak says "dollar five point two zero")
//   times      3:45 pm -> three forty five p m, 3:05 -> three oh five, 12:00 -> twelve o'clock
//              (espeak says "three zero five", "twelve zero zero")
//   dates      May 4 -> May fourth, 4 May -> fourth of May, Jan. 3, 1987 -> January third nineteen
//              eighty seven; years 1100-1999 after in/since/by/from/... -> nineteen eighty seven
//              (espeak says "nineteen hundred eighty seven"); 1980s -> nineteen eighties
//   titles     Dr. Smith -> doctor Smith, Elm Dr. -> Elm Drive, St. Louis -> saint Louis,
//              Main St. -> Main street, Mr. Mrs. Ms. Prof. Jr. ... (espeak breaks the clause)
//   other      vs. e.g. i.e. etc. No. 5 approx. -> words
//   units      5 km -> 5 kilometers, 10 kg, 3 ml, 20°C -> 20 degrees Celsius, 100 mph ...
//              (espeak spells "K M", "degrees C"); singular after exactly 1
//   percent    75% -> 75 percent
//   URLs       https://www.example.com/a -> w w w dot example dot com slash a
//   e-mail     john.doe@example.com -> john dot doe at example dot com
// Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tts::frontend {

// Applies the rules for `language`, a BCP 47 tag or an espeak-ng voice name ("en-us", "es-MX",
// "es-419", "fr-CA", "it", "ru"): its primary subtag chooses them (language.h, text_rules_for).
// Other languages are returned unchanged.
std::string normalize_text(std::string_view sentence, std::string_view language);

// A number in words in `language` (masculine where gender matters), for SSML say-as: cardinal
// 21 -> "twenty one", "veintiuno", "vingt et un", "ventuno", "двадцать один"; ordinal 21 ->
// "twenty first", "vigésimo primero", "vingt et unième", "ventunesimo", "двадцать первый".
// Nothing for a language without rules here.
std::optional<std::string> spell_cardinal(std::uint64_t n, std::string_view language);
std::optional<std::string> spell_ordinal(std::uint64_t n, std::string_view language);

namespace en {
std::string normalize(std::string_view sentence);
}  // namespace en
namespace es {
std::string normalize(std::string_view sentence);
}  // namespace es
namespace fr {
std::string normalize(std::string_view sentence);
}  // namespace fr
namespace it {
std::string normalize(std::string_view sentence);
}  // namespace it
namespace ru {
std::string normalize(std::string_view sentence);
}  // namespace ru

}  // namespace tts::frontend
