// The default symbol table (see SymbolTable::default_table). Append only: ids are part of every
// voice trained with it.
#include "tts/frontend/phonemizer.h"
#include "tts/frontend/symbol_table.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {
std::vector<std::string> default_symbols() {
  std::vector<std::string> symbols = {"_", "^", "$", " "};
  for (char mark : kClausePunctuation) symbols.emplace_back(1, mark);
  auto add = [&](char32_t first, char32_t last) {
    for (char32_t cp = first; cp <= last; ++cp) {
      std::string symbol;
      append_utf8(symbol, cp);
      symbols.push_back(symbol);
    }
  };
  add('a', 'z');
  // IPA letters outside the IPA Extensions block: æ ç ð ø ħ ŋ œ β θ χ ᵊ ᵻ ᵿ ⱱ
  for (char32_t cp : {0xE6, 0xE7, 0xF0, 0xF8, 0x127, 0x14B, 0x153, 0x3B2, 0x3B8, 0x3C7, 0x1D4A,
                      0x1D7B, 0x1D7F, 0x2C71})
    add(cp, cp);
  add(0x250, 0x2AF);  // IPA Extensions: ɐ ɑ ɒ ɓ ɔ ... ʔ ʕ ...
  add(0x2B0, 0x2FF);  // Spacing Modifier Letters: ʰ ʲ ʷ ˈ ˌ ː ˑ ˞ ˠ ˤ ...
  add(0x300, 0x36F);  // Combining Diacritical Marks: nasal ̃, syllabic ̩, dental ̪, tie ͡ ...
  return symbols;
}
}  // namespace

const SymbolTable& SymbolTable::default_table() {
  static const SymbolTable table(default_symbols());
  return table;
}

}  // namespace tts::frontend
