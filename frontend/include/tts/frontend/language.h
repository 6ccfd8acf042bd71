// Language tags: BCP 47 (what voices and clients name: "en-US", "es-MX") and espeak-ng voice names
// (what the phonemiser takes: "en-us", "es-419"), and the text rules chosen for each.
#pragma once

#include <string>
#include <string_view>

namespace tts::frontend {

// The languages whose text rules are ours (numbers, dates, times, currency, abbreviations,
// sentence ends): English, Spanish, French, Italian, Russian. Others are left to espeak-ng.
enum class TextRules { kNone, kEnglish, kSpanish, kFrench, kItalian, kRussian };

// The primary language subtag, lower case: "en-US", "en_us", "EN" -> "en"; "" for "".
std::string primary_language(std::string_view tag);

// The rules for a BCP 47 tag or an espeak-ng voice name ("es-MX", "es-419", "fr-fr", "ru").
TextRules text_rules_for(std::string_view tag);

// BCP 47 casing of a tag or espeak-ng voice name: language lower case, a two-letter region upper
// case, a four-letter script title case, '_' read as '-' ("en-us" -> "en-US", "en-gb-x-rp" ->
// "en-GB-x-rp", "es-419" stays).
std::string bcp47_casing(std::string_view tag);

// Whether `tag` has the shape of a BCP 47 language tag: a 2-3 letter language, then subtags of
// 1-8 letters or digits, separated by '-'. (Not a registry check.)
bool looks_like_bcp47(std::string_view tag);

}  // namespace tts::frontend
