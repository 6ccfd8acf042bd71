// Each language's abbreviations and sentence-starting words, for the sentence-end decision
// (internal; sentence_boundary.cpp).
#pragma once

#include <string_view>
#include <vector>

#include "tts/frontend/language.h"

namespace tts::frontend::detail {

struct SentenceAbbreviations {
  // Titles and abbreviations that are followed by more of the same sentence ("Dr", "Sra", "Mme").
  std::vector<std::string_view> titles;
  // Compared in lower case: never end a sentence ("e.g", "vs").
  std::vector<std::string_view> always_continued;
  // Followed by a number: "No. 5", "núm. 5", "стр. 5".
  std::vector<std::string_view> before_number;
  // Often end a sentence: they end one only before a sentence-starting word ("etc", "и др").
  std::vector<std::string_view> maybe_final;
  std::vector<std::string_view> sentence_starters;
};

// English's for TextRules::kEnglish and kNone.
const SentenceAbbreviations& sentence_abbreviations(TextRules rules);

}  // namespace tts::frontend::detail
