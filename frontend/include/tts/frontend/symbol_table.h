// A voice's phoneme symbol table: phoneme symbols (IPA code points, or multi-code-point tokens such
// as "tʃ" when a voice defines them) to the integer ids its acoustic model embeds.
//
// JSON form, as embedded in a voice config: {"symbols": ["_", "^", "$", " ", ".", ...]}; a symbol's
// id is its index. "_" (padding) must be id 0; "^" (BOS), "$" (EOS) and " " (word boundary) must
// be present. Immutable after construction, so one table may be shared by any number of threads.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tts::frontend {

// Thrown by SymbolTable::encode when the phonemes hold symbols the table lacks. The message names
// every unknown symbol (with its code points) and the sentence.
class UnknownPhonemeError : public std::runtime_error {
 public:
  UnknownPhonemeError(std::vector<std::string> symbols, std::string sentence);
  const std::vector<std::string>& symbols() const { return symbols_; }
  const std::string& sentence() const { return sentence_; }

 private:
  std::vector<std::string> symbols_;
  std::string sentence_;
};

// How a symbol takes time in speech, which decides how many frames alignment may give it.
enum class SymbolTiming : unsigned char {
  kSounds,       // a phone: at least one frame
  kMayPause,     // pad, BOS, EOS, word boundary: zero frames, or the pause there
  kClausePause,  // clause punctuation , . ? ! ; : — zero frames, or the pause there, where
                 // speakers pause most (alignment does not charge it for pausing)
  kNoTime,  // modifier letters and combining diacritics only (stress ˈ ˌ, length ː, aspiration
            // ʰ, nasal ̃ ...): no frames of their own; they colour a neighbouring phone
};

class SymbolTable {
 public:
  static constexpr int kPadId = 0;
  static constexpr std::string_view kPad = "_", kBos = "^", kEos = "$", kWordBoundary = " ";

  // Throws std::invalid_argument naming the problem (empty, duplicate or invalid UTF-8 symbol,
  // pad not first, BOS/EOS/word boundary missing).
  explicit SymbolTable(std::vector<std::string> symbols);
  static SymbolTable from_json(const nlohmann::json& config);  // {"symbols": [...]}
  static SymbolTable from_json_text(std::string_view json_text);
  nlohmann::json to_json() const;

  // espeak-ng's IPA for English and German (and most European languages): pad, BOS, EOS, space,
  // the clause punctuation . , ? ! ; :, then a-z, the IPA Extensions block, stress, length and
  // other modifier letters, combining diacritics and the few IPA letters outside those blocks.
  // Its order is fixed: ids of existing symbols never change, new symbols are only appended.
  static const SymbolTable& default_table();

  std::size_t size() const { return symbols_.size(); }
  const std::string& symbol(int id) const { return symbols_.at(static_cast<std::size_t>(id)); }
  std::optional<int> id(std::string_view symbol) const;
  int bos_id() const { return bos_; }
  int eos_id() const { return eos_; }
  int word_boundary_id() const { return word_boundary_; }

  // How each id takes time in speech (indexed by id); alignment and synthesis follow it.
  const std::vector<SymbolTiming>& timings() const { return timings_; }
  static SymbolTiming timing_of(std::string_view symbol);

  // Splits phonemes into the table's symbols, longest match first; a code point that starts no
  // symbol becomes a one-code-point token of its own (which id() does not know).
  std::vector<std::string> tokenize(std::string_view phonemes) const;

  // BOS, the ids of the phonemes' symbols, EOS. Unknown symbols are appended to `unknown` (once
  // each) and left out of the ids: the caller decides; nothing is dropped without a report.
  std::vector<int> encode(std::string_view phonemes, std::vector<std::string>& unknown) const;
  // As above, but throws UnknownPhonemeError naming the unknown symbols and `sentence`.
  std::vector<int> encode(std::string_view phonemes, std::string_view sentence) const;

 private:
  std::vector<std::string> symbols_;
  std::unordered_map<std::string, int> ids_;
  std::size_t longest_ = 1;  // longest symbol, in bytes
  int bos_ = -1, eos_ = -1, word_boundary_ = -1;
  std::vector<SymbolTiming> timings_;
};

}  // namespace tts::frontend
