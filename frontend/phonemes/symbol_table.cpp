#include "tts/frontend/symbol_table.h"

#include <nlohmann/json.hpp>

#include "tts/frontend/phonemizer.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {
std::string describe(const std::string& symbol) {
  std::string names;
  for (std::size_t i = 0; i < symbol.size();) {
    if (!names.empty()) names += ' ';
    names += code_point_name(next_code_point(symbol, i));
  }
  return "\"" + symbol + "\" (" + names + ")";
}

std::string unknown_message(const std::vector<std::string>& symbols, const std::string& sentence) {
  std::string message = "unknown phoneme";
  message += symbols.size() == 1 ? " " : "s ";
  for (std::size_t i = 0; i < symbols.size(); ++i)
    message += (i ? ", " : "") + describe(symbols[i]);
  return message + " in sentence \"" + sentence + "\" (not in the voice's symbol table)";
}
}  // namespace

UnknownPhonemeError::UnknownPhonemeError(std::vector<std::string> symbols, std::string sentence)
    : std::runtime_error(unknown_message(symbols, sentence)),
      symbols_(std::move(symbols)),
      sentence_(std::move(sentence)) {}

SymbolTable::SymbolTable(std::vector<std::string> symbols) : symbols_(std::move(symbols)) {
  for (std::size_t i = 0; i < symbols_.size(); ++i) {
    const std::string& s = symbols_[i];
    std::string where = "symbol table entry " + std::to_string(i);
    if (s.empty()) throw std::invalid_argument(where + " is empty");
    if (find_invalid_utf8(s)) throw std::invalid_argument(where + " is not valid UTF-8");
    if (!ids_.emplace(s, static_cast<int>(i)).second)
      throw std::invalid_argument(where + " " + describe(s) + " repeats entry " +
                                  std::to_string(ids_.at(s)));
    longest_ = std::max(longest_, s.size());
  }
  if (symbols_.empty() || symbols_[0] != kPad)
    throw std::invalid_argument("symbol table must start with the pad symbol \"_\" (id 0)");
  auto require = [&](std::string_view symbol, const char* what) {
    auto found = id(symbol);
    if (!found)
      throw std::invalid_argument("symbol table lacks the " + std::string(what) + " symbol \"" +
                                  std::string(symbol) + "\"");
    return *found;
  };
  bos_ = require(kBos, "BOS");
  eos_ = require(kEos, "EOS");
  word_boundary_ = require(kWordBoundary, "word boundary");
  for (const std::string& symbol : symbols_) timings_.push_back(timing_of(symbol));
}

SymbolTiming SymbolTable::timing_of(std::string_view symbol) {
  if (symbol == kPad || symbol == kBos || symbol == kEos || symbol == kWordBoundary)
    return SymbolTiming::kMayPause;
  if (symbol.size() == 1 && kClausePunctuation.find(symbol[0]) != std::string_view::npos)
    return SymbolTiming::kClausePause;
  // Spacing Modifier Letters (U+02B0..02FF) and Combining Diacritical Marks (U+0300..036F) only.
  std::size_t i = 0;
  while (i < symbol.size()) {
    const char32_t cp = next_code_point(symbol, i);
    if (cp < 0x2B0 || cp > 0x36F) return SymbolTiming::kSounds;
  }
  return SymbolTiming::kNoTime;
}

SymbolTable SymbolTable::from_json(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("symbols") || !config["symbols"].is_array())
    throw std::invalid_argument("symbol table JSON must be an object with a \"symbols\" array");
  std::vector<std::string> symbols;
  for (std::size_t i = 0; i < config["symbols"].size(); ++i) {
    const auto& entry = config["symbols"][i];
    if (!entry.is_string())
      throw std::invalid_argument("symbol table entry " + std::to_string(i) + " is not a string");
    symbols.push_back(entry.get<std::string>());
  }
  return SymbolTable(std::move(symbols));
}

SymbolTable SymbolTable::from_json_text(std::string_view json_text) {
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(std::string("symbol table JSON does not parse: ") + e.what());
  }
  return from_json(config);
}

nlohmann::json SymbolTable::to_json() const { return {{"symbols", symbols_}}; }

std::optional<int> SymbolTable::id(std::string_view symbol) const {
  auto found = ids_.find(std::string(symbol));
  if (found == ids_.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string> SymbolTable::tokenize(std::string_view phonemes) const {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < phonemes.size()) {
    std::size_t length = 0;
    for (std::size_t n = std::min(longest_, phonemes.size() - i); n > 0 && length == 0; --n)
      if (ids_.count(std::string(phonemes.substr(i, n)))) length = n;
    if (length == 0) {  // unknown: one code point
      std::size_t next = i;
      next_code_point(phonemes, next);
      length = next - i;
    }
    tokens.emplace_back(phonemes.substr(i, length));
    i += length;
  }
  return tokens;
}

std::vector<int> SymbolTable::encode(std::string_view phonemes,
                                     std::vector<std::string>& unknown) const {
  require_valid_utf8(phonemes);
  std::vector<int> ids{bos_};
  for (const std::string& token : tokenize(phonemes)) {
    if (auto found = id(token)) {
      ids.push_back(*found);
    } else if (std::find(unknown.begin(), unknown.end(), token) == unknown.end()) {
      unknown.push_back(token);
    }
  }
  ids.push_back(eos_);
  return ids;
}

std::vector<int> SymbolTable::encode(std::string_view phonemes, std::string_view sentence) const {
  std::vector<std::string> unknown;
  std::vector<int> ids = encode(phonemes, unknown);
  if (!unknown.empty()) throw UnknownPhonemeError(std::move(unknown), std::string(sentence));
  return ids;
}

}  // namespace tts::frontend
