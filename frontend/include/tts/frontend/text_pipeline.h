// Text to phoneme ids, sentence by sentence: split -> normalise -> phonemise -> encode, in one of
// the languages the pipeline speaks (the first unless told otherwise): each has its espeak-ng
// voice, and its text rules and sentence splitting follow its BCP 47 tag's primary subtag.
// Each sentence is handed over as soon as the splitter completes it, so input of any size streams
// in bounded memory. Thread-safe to share across threads (the espeak-ng step takes turns; see
// phonemizer.h); each call keeps its own splitter.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "tts/frontend/language.h"
#include "tts/frontend/phonemizer.h"
#include "tts/frontend/symbol_table.h"

namespace tts::frontend {

// An SSML <mark> inside a sentence: it falls before symbol `symbol` of `ids` (the first symbol of
// the word after it; 1 for a mark before the first word), or at the sentence's end (ids.size())
// for a mark after its last word.
struct SentenceMark {
  std::string name;
  std::size_t symbol = 0;
};

struct PhonemizedSentence {
  std::string text;        // the sentence as split from the input
  std::string normalized;  // what was given to espeak-ng
  std::string phonemes;    // IPA with word boundaries and clause punctuation (phonemizer.h)
  std::vector<int> ids;    // BOS, phoneme ids, EOS
  std::vector<SentenceMark> marks;  // SSML marks in it, in order (only from process_ssml)
};

using PhonemizedSink = std::function<void(PhonemizedSentence)>;

class TextPipeline {
 public:
  // One language: the espeak-ng voice `language`, speaking its BCP 47 form ("en-us": "en-US").
  // Throws UnknownLanguageError. `table` must outlive the pipeline.
  explicit TextPipeline(std::string language = "en-us",
                        const SymbolTable& table = SymbolTable::default_table());
  // Several languages, the first the default. Throws UnknownLanguageError for an espeak-ng voice
  // espeak-ng does not have, std::invalid_argument for an empty list.
  TextPipeline(const std::vector<SpokenLanguage>& languages, const SymbolTable& table);

  // `language`: an index into languages(); one past the end throws std::out_of_range.
  PhonemizedSentence process_sentence(std::string_view sentence, std::size_t language = 0) const;
  // Throws InvalidUtf8Error (with the byte offset) and UnknownPhonemeError (naming the symbols
  // and the sentence); sentences before the error have already been handed over.
  void process(std::string_view text, const PhonemizedSink& sink, std::size_t language = 0) const;
  void process(std::istream& in, const PhonemizedSink& sink, std::size_t language = 0) const;

  // The default language's espeak-ng voice.
  const std::string& language() const { return phonemizers_.front().language(); }
  const std::vector<SpokenLanguage>& languages() const { return languages_; }
  // The espeak-ng voice of languages()[language], as the phonemiser reads it ("en-us").
  const std::string& espeak_voice(std::size_t language) const {
    return phonemizers_.at(language).language();
  }
  // The language of languages() that `tag` names (match_language: the tag, then its primary
  // subtag); nothing when the pipeline does not speak it.
  std::optional<std::size_t> find_language(std::string_view tag) const;
  const SymbolTable& symbols() const { return table_; }

 private:
  std::vector<SpokenLanguage> languages_;
  std::vector<Phonemizer> phonemizers_;  // one per language, in the same order
  const SymbolTable& table_;
};

}  // namespace tts::frontend
