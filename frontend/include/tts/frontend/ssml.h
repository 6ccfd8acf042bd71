// The SSML subset the engine reads: speak, s, p, break (time, strength), prosody (rate, pitch,
// volume), say-as (interpret-as characters/spell-out, digits, cardinal, ordinal, date, time), sub
// (alias), phoneme (alphabet="ipa", ph), mark (name), lang and voice; xml:lang on speak, p, s,
// voice and lang switches the language of their content. Unknown elements are reported as warnings
// and skipped; their text is still spoken. Malformed markup throws SsmlError with line and column.
// Stateless and thread-safe.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tts/frontend/language.h"

namespace tts::frontend {

class SsmlError : public std::runtime_error {
 public:
  SsmlError(int line, int column, const std::string& message);
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_, column_;
};

// Nested <prosody> multiply; the product is kept within these bounds (and a warning says when it
// was not), so that a value such as rate="0.0001" or a run of nested ones cannot ask for
// unbounded audio or leave the range a double or the acoustic model's ±24 semitones holds.
inline constexpr double kMinProsodyRate = 0.1, kMaxProsodyRate = 10.0;
inline constexpr double kMinProsodyPitch = 0.25, kMaxProsodyPitch = 4.0;  // ±24 semitones
inline constexpr double kMaxProsodyVolume = 16.0;                         // +24 dB

struct Prosody {
  double rate = 1.0;    // duration divisor: 2 = twice as fast (kMinProsodyRate..kMaxProsodyRate)
  double pitch = 1.0;   // pitch multiplier (kMinProsodyPitch..kMaxProsodyPitch)
  double volume = 1.0;  // amplitude multiplier (0..kMaxProsodyVolume)
  bool operator==(const Prosody& other) const {
    return rate == other.rate && pitch == other.pitch && volume == other.volume;
  }
};

struct SsmlSegment {
  enum class Kind {
    kText,         // `text` is to be split, normalised and phonemised as usual
    kPhonemes,     // `text` is IPA given by <phoneme>, used as is
    kBreak,        // a pause of `break_ms` milliseconds
    kSentenceEnd,  // the end of an <s> or <p>: the text before it is a sentence of its own
    kMark,         // a <mark>: `text` is its name, reported when the audio gets to this point
  };
  Kind kind = Kind::kText;
  std::string text;
  int break_ms = 0;
  Prosody prosody;
  // The language `text` is read in: an index into the languages the document was parsed for
  // (the innermost xml:lang the voice speaks, else the document's base language).
  std::size_t language = 0;
};

struct SsmlDocument {
  std::vector<SsmlSegment> segments;
  std::vector<std::string> warnings;  // "line 3, column 5: unknown element <emphasis> skipped"
};

// `language` chooses how say-as cardinal, ordinal, date and time are expanded: in the words of
// the language's text rules (English, Spanish, French, Italian, Russian: language.h); other
// languages keep the digits for espeak-ng, with a warning where that loses meaning.
SsmlDocument parse_ssml(std::string_view markup, std::string_view language = "en-us");

// For a voice that speaks `languages` (the first its default; TextPipeline::languages()), the text
// starting in languages[base]. xml:lang on <speak>, <p>, <s>, <voice> and <lang> switches the
// language of their content to the one of `languages` it names (match_language: the tag, then its
// primary subtag), which then chooses the text rules, the sentence splitting and the espeak-ng
// voice; a language the voice does not speak is a warning naming it, and the content is read in
// the voice's default language. <voice> chooses no other voice (a name, gender or age is a
// warning). Throws std::invalid_argument for an empty list or a base outside it.
SsmlDocument parse_ssml(std::string_view markup, const std::vector<SpokenLanguage>& languages,
                        std::size_t base = 0);

// True if `text` looks like SSML (starts, after white space, with "<speak" or "<?xml").
bool looks_like_ssml(std::string_view text);

// The longest <mark> name accepted, in bytes of UTF-8; a longer one is an SsmlError, as are a
// missing or empty name and one with control characters. Names need not be unique: every mark is
// reported, in document order.
inline constexpr std::size_t kMaxMarkNameBytes = 1024;

}  // namespace tts::frontend
