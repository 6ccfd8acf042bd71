// What sd_tts makes of Speech Dispatcher's settings and non-text messages, as pure functions:
// the -100…100 rate, pitch and volume on the engine's scales, CHAR and KEY messages as SSML, the
// punctuation modes, the module's config file and the choice of a voice.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tts::speechd {

// Speech Dispatcher's rate −100…100 (0 = the voice's own) → the engine's rate factor:
// 2^(rate/50), so every 50 steps doubles or halves the speed and the scale is symmetric around
// the voice's own pace (−100 = a quarter, +100 = four times as fast), clamped to the engine's
// (0, 10].
float rate_factor(int rate);
// Speech Dispatcher's pitch −100…100 → semitones: pitch × 12 / 100, one octave either way at the
// ends. Semitones (a log scale) because that is how pitch is heard and how the engine's
// pitch_semitones shifts the voice; an octave is as far as a pitch-shifted neural voice
// stays natural, and it keeps Orca's 0…10 slider (−100…100) at 2.4 semitones a step.
float pitch_semitones(int pitch);
// Speech Dispatcher's volume −100…100 → amplitude: (volume + 100) / 200 × 1, so 100 (the
// server's default) is the voice's own level and −100 is silence.
float volume_gain(int volume);

// An integer setting in [lo, hi]; nothing for anything else ("12x", "", out of range).
std::optional<int> parse_int(std::string_view text, int lo, int hi);

// "<", ">", "&", '"' and "'" as XML entities.
std::string xml_escape(std::string_view text);

// What can be spoken of a message that is not SSML the engine reads (malformed, not SSML at all,
// not UTF-8): its text, each tag (from "<" and a letter, "/", "!" or "?" to the next ">") and
// comment left out, the five named entities and numeric character references decoded, and each
// byte that is not UTF-8 replaced by U+FFFD. Plain text, for the engine to read as such.
std::string text_of_markup(std::string_view message);

// The spoken name of one character ("comma", "space", "dollar"), or nothing for a letter, digit
// or other character that is spoken as itself.
std::optional<std::string> character_name(std::string_view utf8_char);

// A CHAR message ("a", "?", " ") as SSML: the character's name, or the character spelled.
std::string char_ssml(std::string_view character);
// A KEY message ("a", "shift_a", "control_alt_delete", "kp-enter", "f5", "double-quote") as
// SSML: modifiers and the key, each spoken by name.
std::string key_ssml(std::string_view key);

enum class Punctuation { kNone, kSome, kMost, kAll };
// "none", "some", "most", "all"; nothing for anything else.
std::optional<Punctuation> parse_punctuation(std::string_view text);
// Punctuation spoken by name in the text of an SSML document (never inside tags or attribute
// values): kSome the symbols (# $ % & * + / < = > @ \ ^ _ ` | ~), kMost also brackets and quotes
// and the like, kAll every ASCII punctuation character. Sentence punctuation (. , ; : ! ?) keeps
// its place after its name, so sentences and phrasing stay as they were.
std::string speak_punctuation(std::string_view ssml, Punctuation mode);

// Spelling mode (SET spelling_mode=on): the text of an SSML document spelled letter by letter, each
// run of text between tags put in <say-as interpret-as="characters"> (marks and other elements
// stay where they are; text already in a say-as, phoneme or sub is left to it).
std::string spell_ssml(std::string_view ssml);

// The module's config file (speechd's dotconf syntax: "Key value" or Key "value" lines, "#"
// comments): keys are lower-cased; unknown keys are kept for the caller to warn about.
std::map<std::string, std::string> parse_config(std::string_view text);

struct InstalledVoice {
  std::string name;
  std::vector<std::string> languages;  // BCP 47, as VoiceInfo::languages ("en-US", "es-MX")
};
// The voice to speak with: `synthesis_voice` when installed (by name, case-insensitive), else the
// one engine::voice_for_language finds for `language` among all the languages of each voice
// (en_US = en-US; "en" finds "en-US", `fallback` first when it fits), else `fallback`. Empty
// strings and "NULL" (what the server sends for unset) mean unset.
std::string choose_voice(const std::vector<InstalledVoice>& voices,
                         std::string_view synthesis_voice, std::string_view language,
                         std::string_view fallback);

}  // namespace tts::speechd
