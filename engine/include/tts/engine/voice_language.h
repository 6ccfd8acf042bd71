// Choosing a voice by language: the one rule `tts say --lang`, the servers (Wyoming's
// voice.language) and sd_tts (SET language) share. A voice is found for any of the languages it
// speaks (VoiceInfo::languages), so a bilingual voice is found for either.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tts::engine {

// Which of several voices speaks `tag`: one whose first (default) language is the tag itself (case
// aside, '_' as '-': "en_US" is "en-US"), else one that speaks it among its other languages, else
// the same two by the tag's primary subtag ("es" and "es-ES" find an "es-MX" voice). Within each,
// `preferred` when it qualifies, else the first that does. `spoken[i]` holds the BCP 47 tags voice
// i speaks, its default first. Nothing when none speaks it, or for an empty tag.
std::optional<std::size_t> voice_for_language(std::string_view tag,
                                              const std::vector<std::vector<std::string>>& spoken,
                                              std::optional<std::size_t> preferred = std::nullopt);

// Why a language tag a caller gave cannot name a language, as the message every interface (`tts
// say --lang`, tts_synthesis_options.language, the Python package) refuses it with: an empty tag
// (leaving the tag out is how the voice's first language is asked for) or one holding a NUL (which
// a C string would end at: "es\0garbage" is not "es"). Nothing for any other tag, which is then
// looked up among the voice's languages.
std::optional<std::string> language_tag_problem(std::string_view tag);

// Every tag of `spoken`, each once, in order, joined by ", ": what a message says the voices
// speak ("en-US, es-MX, fr-CA").
std::string languages_spoken(const std::vector<std::vector<std::string>>& spoken);

}  // namespace tts::engine
