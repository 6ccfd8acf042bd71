// Text to phoneme ids, sentence by sentence: split -> normalise -> phonemise -> encode.
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
  // Throws UnknownLanguageError. `table` must outlive the pipeline.
  explicit TextPipeline(std::string language = "en-us",
                        const SymbolTable& table = SymbolTable::default_table());

  PhonemizedSentence process_sentence(std::string_view sentence) const;
  // Throws InvalidUtf8Error (with the byte offset) and UnknownPhonemeError (naming the symbols
  // and the sentence); sentences before the error have already been handed over.
  void process(std::string_view text, const PhonemizedSink& sink) const;
  void process(std::istream& in, const PhonemizedSink& sink) const;

  const std::string& language() const { return phonemizer_.language(); }
  const SymbolTable& symbols() const { return table_; }

 private:
  Phonemizer phonemizer_;
  const SymbolTable& table_;
};

}  // namespace tts::frontend
