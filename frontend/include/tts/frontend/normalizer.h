// Text normalisation: rewrites, before phonemisation, what libespeak-ng reads badly in a language.
// What espeak-ng reads well (plain numbers, decimals, ordinals like "4th", percentages in most
// languages) is left to it, so the output may still hold digits.
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

#include <string>
#include <string_view>

namespace tts::frontend {

// Applies the rules for `language` (an espeak-ng language such as "en-us"; every "en" variant gets
// the English rules, other languages are returned unchanged).
std::string normalize_text(std::string_view sentence, std::string_view language);

namespace en {
std::string normalize(std::string_view sentence);
}  // namespace en

}  // namespace tts::frontend
