#include "tts/frontend/text_pipeline.h"

#include "tts/frontend/normalizer.h"
#include "tts/frontend/sentence_splitter.h"

namespace tts::frontend {

TextPipeline::TextPipeline(std::string language, const SymbolTable& table)
    : phonemizer_(std::move(language)), table_(table) {}

PhonemizedSentence TextPipeline::process_sentence(std::string_view sentence) const {
  PhonemizedSentence out;
  out.text = std::string(sentence);
  out.normalized = normalize_text(sentence, phonemizer_.language());
  out.phonemes = phonemizer_.phonemize(out.normalized);
  out.ids = table_.encode(out.phonemes, out.text);
  return out;
}

void TextPipeline::process(std::string_view text, const PhonemizedSink& sink) const {
  SentenceSplitter splitter(phonemizer_.language());
  SentenceSink each = [&](std::string sentence) { sink(process_sentence(sentence)); };
  splitter.feed(text, each);
  splitter.finish(each);
}

void TextPipeline::process(std::istream& in, const PhonemizedSink& sink) const {
  split_sentences(
      in, [&](std::string sentence) { sink(process_sentence(sentence)); }, phonemizer_.language());
}

}  // namespace tts::frontend
