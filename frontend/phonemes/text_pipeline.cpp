#include "tts/frontend/text_pipeline.h"

#include <stdexcept>

#include "tts/frontend/normalizer.h"
#include "tts/frontend/sentence_splitter.h"

namespace tts::frontend {

TextPipeline::TextPipeline(std::string language, const SymbolTable& table)
    : TextPipeline(std::vector<SpokenLanguage>{{bcp47_casing(language), language}}, table) {}

TextPipeline::TextPipeline(const std::vector<SpokenLanguage>& languages, const SymbolTable& table)
    : languages_(languages), table_(table) {
  if (languages_.empty()) throw std::invalid_argument("a text pipeline needs a language");
  for (const SpokenLanguage& language : languages_)
    phonemizers_.emplace_back(language.espeak_voice);
}

std::optional<std::size_t> TextPipeline::find_language(std::string_view tag) const {
  std::vector<std::string> tags;
  for (const SpokenLanguage& language : languages_) tags.push_back(language.tag);
  return match_language(tag, tags);
}

PhonemizedSentence TextPipeline::process_sentence(std::string_view sentence,
                                                  std::size_t language) const {
  const Phonemizer& phonemizer = phonemizers_.at(language);
  PhonemizedSentence out;
  out.text = std::string(sentence);
  out.normalized = normalize_text(sentence, languages_.at(language).tag);
  out.phonemes = phonemizer.phonemize(out.normalized);
  out.ids = table_.encode(out.phonemes, out.text);
  return out;
}

void TextPipeline::process(std::string_view text, const PhonemizedSink& sink,
                           std::size_t language) const {
  SentenceSplitter splitter(languages_.at(language).tag);
  SentenceSink each = [&](std::string sentence) { sink(process_sentence(sentence, language)); };
  splitter.feed(text, each);
  splitter.finish(each);
}

void TextPipeline::process(std::istream& in, const PhonemizedSink& sink,
                           std::size_t language) const {
  split_sentences(
      in, [&](std::string sentence) { sink(process_sentence(sentence, language)); },
      languages_.at(language).tag);
}

}  // namespace tts::frontend
