// Language tags: BCP 47 (what voices and clients name: "en-US", "es-MX") and espeak-ng voice names
// (what the phonemiser takes: "en-us", "es-419"), and the text rules chosen for each.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// One language a voice speaks: its BCP 47 tag ("es-MX") and the espeak-ng voice that phonemises
// its text ("es-419").
struct SpokenLanguage {
  std::string tag;
  std::string espeak_voice;
};

// Whether two tags are the same, as clients write them: case aside, '_' read as '-' ("en_US" is
// "en-US").
bool same_language_tag(std::string_view a, std::string_view b);

// Which of `tags` the tag `wanted` names: the same tag (same_language_tag), else the first with
// its primary subtag ("es" and "es-ES" name "es-MX"); nothing when none does or `wanted` is empty.
// Every choice by language goes through it: SSML xml:lang against a voice's languages, and the
// engine's choice of a voice for a language (tts/engine/voice_language.h).
std::optional<std::size_t> match_language(std::string_view wanted,
                                          const std::vector<std::string>& tags);

}  // namespace tts::frontend
