// libFuzzer target for the SSML parser (frontend/ssml/ssml_parser.cpp, parse_ssml) on arbitrary
// bytes. The first byte chooses the voice's languages (English, whose say-as expands numbers, dates
// and times into words, or French, which leaves them to espeak-ng; or English and Spanish, between
// which xml:lang switches); the rest is the markup.
//
// Checks, besides the sanitizers': a parse either throws SsmlError (with a message and a line and
// column that are not negative) or returns a document whose every segment is well formed: text
// (of text and phoneme segments) is valid UTF-8, a break lasts 0 to 60 s, prosody is finite with
// rate and pitch above 0 and volume at least 0, its language one of the voice's; every warning says
// something. Nothing else may escape.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tts/frontend/ssml.h"
#include "tts/frontend/utf8.h"

using tts::frontend::SsmlSegment;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<tts::frontend::SpokenLanguage> languages = {{"en-US", "en-us"}};
  if (data[0] & 1) languages = {{"fr", "fr"}};
  if (data[0] & 2) languages.push_back({"es-MX", "es-419"});
  const std::string_view markup(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)tts::frontend::looks_like_ssml(markup);
  tts::frontend::SsmlDocument document;
  try {
    document = tts::frontend::parse_ssml(markup, languages);
  } catch (const tts::frontend::SsmlError& e) {
    TTS_FUZZ_CHECK(e.line() >= 0 && e.column() >= 0);
    TTS_FUZZ_CHECK(e.what()[0] != '\0');
    return 0;
  }
  for (const SsmlSegment& s : document.segments) {
    if (s.kind == SsmlSegment::Kind::kText || s.kind == SsmlSegment::Kind::kPhonemes)
      TTS_FUZZ_CHECK(!tts::frontend::find_invalid_utf8(s.text));
    if (s.kind == SsmlSegment::Kind::kBreak) TTS_FUZZ_CHECK(s.break_ms >= 0 && s.break_ms <= 60000);
    TTS_FUZZ_CHECK(std::isfinite(s.prosody.rate) && s.prosody.rate > 0);
    TTS_FUZZ_CHECK(std::isfinite(s.prosody.pitch) && s.prosody.pitch > 0);
    TTS_FUZZ_CHECK(std::isfinite(s.prosody.volume) && s.prosody.volume >= 0);
    TTS_FUZZ_CHECK(s.language < languages.size());
  }
  for (const std::string& w : document.warnings) TTS_FUZZ_CHECK(!w.empty());
  return 0;
}
