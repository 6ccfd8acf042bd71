// libFuzzer target for the text front end (frontend/text/): the sentence splitter and the
// normalisers of the five languages with rules, on arbitrary bytes.
//
// Checks, besides the sanitizers': input that is not UTF-8 throws InvalidUtf8Error at the offset
// find_invalid_utf8 names, and nothing else escapes; fed in pieces of 1 to 16 bytes (as a stream
// arrives) the splitter gives the same sentences, or the same error, as all at once; every
// sentence is valid UTF-8, at most kMaxSentenceBytes long, non-empty, trimmed, without control
// characters or runs of spaces (sentence_splitter.h); normalize_text of a sentence in English,
// Spanish, French, Italian or Russian returns valid UTF-8 without throwing, and leaves a language
// without rules (German) unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/sentence_splitter.h"
#include "tts/frontend/utf8.h"

using tts::frontend::InvalidUtf8Error;

namespace {

struct Split {
  std::vector<std::string> sentences;
  std::optional<std::size_t> error;  // the offset of InvalidUtf8Error
};

Split split_whole(std::string_view text) {
  Split out;
  try {
    out.sentences = tts::frontend::split_sentences(text);
  } catch (const InvalidUtf8Error& e) {
    out.error = e.offset();
  }
  return out;
}

Split split_in_pieces(std::string_view text) {
  Split out;
  tts::frontend::SentenceSplitter splitter;
  const auto sink = [&](std::string s) { out.sentences.push_back(std::move(s)); };
  unsigned state = static_cast<unsigned>(text.size()) * 2654435761u;
  try {
    for (std::size_t at = 0; at < text.size();) {
      state = state * 1103515245u + 12345u;
      const std::size_t piece = std::min<std::size_t>(1 + (state >> 16) % 16, text.size() - at);
      splitter.feed(text.substr(at, piece), sink);
      at += piece;
    }
    splitter.finish(sink);
  } catch (const InvalidUtf8Error& e) {
    out.error = e.offset();
  }
  return out;
}

void check_sentence(const std::string& s) {
  TTS_FUZZ_CHECK(!tts::frontend::find_invalid_utf8(s));
  TTS_FUZZ_CHECK(!s.empty());
  TTS_FUZZ_CHECK(s.size() <= tts::frontend::kMaxSentenceBytes);
  TTS_FUZZ_CHECK(s.front() != ' ' && s.back() != ' ');
  TTS_FUZZ_CHECK(s.find("  ") == std::string::npos);
  for (unsigned char c : s) TTS_FUZZ_CHECK(c >= 0x20 && c != 0x7F);

  for (const char* language : {"en-us", "es-MX", "fr-CA", "it-IT", "ru-RU"}) {
    const std::string normalised = tts::frontend::normalize_text(s, language);
    TTS_FUZZ_CHECK(!tts::frontend::find_invalid_utf8(normalised));
  }
  TTS_FUZZ_CHECK(tts::frontend::normalize_text(s, "de") == s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Split whole = split_whole(text);
  const auto invalid = tts::frontend::find_invalid_utf8(text);
  TTS_FUZZ_CHECK(whole.error.has_value() == invalid.has_value());
  if (invalid) TTS_FUZZ_CHECK(*whole.error == *invalid);

  const Split pieces = split_in_pieces(text);
  TTS_FUZZ_CHECK(pieces.error == whole.error);
  if (!whole.error) TTS_FUZZ_CHECK(pieces.sentences == whole.sentences);

  for (const std::string& s : whole.sentences) check_sentence(s);
  return 0;
}
