// Sentence splitting of plain text, incrementally: text goes in chunk by chunk and each sentence
// comes out as soon as it is known to be complete, so input of any size runs in bounded memory.
//
// Thread-safety: a SentenceSplitter is a plain value with no shared state; use one per stream.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "tts/frontend/language.h"

namespace tts::frontend {

// A sentence longer than this many bytes of UTF-8 (about 70 English words) without a sentence end
// is cut at its last word boundary (preferring a comma, semicolon or colon in its second half);
// a single word longer than the limit is cut at a code point boundary.
inline constexpr std::size_t kMaxSentenceBytes = 400;

using SentenceSink = std::function<void(std::string sentence)>;

// What the splitter does with the text, on purpose:
// - Control characters (C0, DEL, C1), zero-width and byte-order marks are dropped; tabs, line
//   breaks and other spaces become one ASCII space; runs of spaces collapse; sentences are trimmed.
// - A sentence ends at . ! ? … (or runs of them) followed by optional closing quotes/brackets and
//   white space, unless the next word starts with a lower-case letter, or the period ends a title
//   abbreviation (Mr. Dr. St. e.g. vs. No. 5 …) or an initial (J. Smith). After abbreviations that
//   may end a sentence (etc. Inc. U.S. a.m. …) it ends only before a common sentence-starting word.
//   The abbreviations and sentence-starting words are the language's own (English, Spanish,
//   French, Italian, Russian: sentence_abbreviations.cpp); other languages get the English lists.
//   Decimals (3.14), URLs and other dots not followed by white space never end a sentence.
// - A blank line (paragraph break) always ends a sentence.
// - A sentence with no letter or digit (empty, or punctuation only) is dropped, not an error.
// Input must be UTF-8: an invalid byte throws InvalidUtf8Error naming its offset in the stream.
class SentenceSplitter {
 public:
  // `language`: a BCP 47 tag or espeak-ng voice name ("en-us", "es-MX", "ru"): whose abbreviations.
  explicit SentenceSplitter(std::string_view language = "en");
  explicit SentenceSplitter(TextRules rules) : rules_(rules) {}

  // Consumes a chunk (which may end inside a UTF-8 sequence) and emits every completed sentence.
  void feed(std::string_view chunk, const SentenceSink& sink);
  // Ends the input: emits what remains and resets the splitter for a new stream.
  void finish(const SentenceSink& sink);

 private:
  void push(char32_t code_point, const SentenceSink& sink);
  void push_space(bool newline, const SentenceSink& sink);
  void resolve_candidate(const SentenceSink& sink);
  void emit(std::size_t length, const SentenceSink& sink);
  void cut_if_too_long(const SentenceSink& sink);

  std::string pending_;         // cleaned text of the sentence being built
  std::size_t marks_ = 0;       // U+FFFC (SSML marks) in pending_, which take no room in it
  std::string partial_;         // bytes of a UTF-8 sequence split across chunks
  std::size_t offset_ = 0;      // bytes consumed so far, for error messages
  std::size_t candidate_ = 0;   // end of a possible sentence end in pending_ (0: none)
  bool space_pending_ = false;  // white space seen after the last character
  int newlines_ = 0;            // line breaks in the current run of white space
  TextRules rules_ = TextRules::kEnglish;
};

// Splits a whole text at once.
std::vector<std::string> split_sentences(std::string_view text, std::string_view language = "en");

// Reads `in` in 64 KiB chunks and emits sentences as they complete.
void split_sentences(std::istream& in, const SentenceSink& sink, std::string_view language = "en");

// The sentence-end decision, exposed for tests. `before` is the text up to and including the
// terminating punctuation (and any closing quotes); `next_word` is the following word.
bool is_sentence_end(std::string_view before, std::string_view next_word,
                     TextRules rules = TextRules::kEnglish);
// True if the decision needs the whole next word, not just its first letter ("etc." "U.S.").
bool sentence_end_needs_next_word(std::string_view before, TextRules rules = TextRules::kEnglish);

}  // namespace tts::frontend
