// The normaliser's dispatch: a language tag to its rules.
#include "tts/frontend/language.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend {

std::string normalize_text(std::string_view sentence, std::string_view language) {
  switch (text_rules_for(language)) {
    case TextRules::kEnglish:
      return en::normalize(sentence);
    case TextRules::kSpanish:
      return es::normalize(sentence);
    case TextRules::kFrench:
      return fr::normalize(sentence);
    case TextRules::kItalian:
      return it::normalize(sentence);
    case TextRules::kRussian:
      return ru::normalize(sentence);
    case TextRules::kNone:
      break;
  }
  return std::string(sentence);
}

std::optional<std::string> spell_cardinal(std::uint64_t n, std::string_view language) {
  switch (text_rules_for(language)) {
    case TextRules::kEnglish:
      return en::cardinal(n);
    case TextRules::kSpanish:
      return es::cardinal(n);
    case TextRules::kFrench:
      return fr::cardinal(n);
    case TextRules::kItalian:
      return it::cardinal(n);
    case TextRules::kRussian:
      return ru::cardinal(n);
    case TextRules::kNone:
      break;
  }
  return std::nullopt;
}

std::optional<std::string> spell_ordinal(std::uint64_t n, std::string_view language) {
  switch (text_rules_for(language)) {
    case TextRules::kEnglish:
      return en::ordinal(n);
    case TextRules::kSpanish:
      return es::ordinal(n);
    case TextRules::kFrench:
      return fr::ordinal(n);
    case TextRules::kItalian:
      return it::ordinal(n);
    case TextRules::kRussian:
      return ru::ordinal(n);
    case TextRules::kNone:
      break;
  }
  return std::nullopt;
}

}  // namespace tts::frontend
