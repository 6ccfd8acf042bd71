#include "tts/frontend/sentence_splitter.h"

#include <algorithm>

#include "char_class.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

using namespace detail;

namespace {
// True if `text` ends with a terminator, optionally followed by closing quotes or brackets.
bool ends_with_terminator(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    char32_t cp = previous_code_point(text, end);
    if (is_terminator(cp)) return true;
    if (!is_closer(cp)) return false;
  }
  return false;
}
}  // namespace

void SentenceSplitter::feed(std::string_view chunk, const SentenceSink& sink) {
  for (char byte : chunk) {
    auto b = static_cast<unsigned char>(byte);
    if (partial_.empty() && b < 0x80) {
      ++offset_;
      push(b, sink);
      continue;
    }
    if (partial_.empty()) {
      if (utf8_sequence_length(b) == 1) throw InvalidUtf8Error(offset_);  // stray continuation
    } else if ((b & 0xC0) != 0x80) {
      throw InvalidUtf8Error(offset_ + partial_.size());
    }
    partial_ += byte;
    if (partial_.size() < utf8_sequence_length(static_cast<unsigned char>(partial_[0]))) continue;
    if (auto bad = find_invalid_utf8(partial_)) throw InvalidUtf8Error(offset_ + *bad);
    std::size_t i = 0;
    char32_t cp = next_code_point(partial_, i);
    offset_ += partial_.size();
    partial_.clear();
    push(cp, sink);
  }
}

void SentenceSplitter::finish(const SentenceSink& sink) {
  if (!partial_.empty()) {
    std::size_t offset = offset_;
    *this = SentenceSplitter(rules_);
    throw InvalidUtf8Error(offset);  // the input ended inside a UTF-8 sequence
  }
  if (candidate_ > 0) resolve_candidate(sink);
  emit(pending_.size(), sink);
  *this = SentenceSplitter(rules_);
}

SentenceSplitter::SentenceSplitter(std::string_view language)
    : SentenceSplitter(text_rules_for(language)) {}

void SentenceSplitter::push(char32_t cp, const SentenceSink& sink) {
  if (is_space(cp) || is_control(cp)) {
    push_space(is_line_break(cp), sink);
    return;
  }
  if (is_invisible(cp)) return;
  if (space_pending_ && !pending_.empty()) pending_ += ' ';
  space_pending_ = false;
  newlines_ = 0;
  append_utf8(pending_, cp);
  if (cp == kObjectReplacement) ++marks_;
  // Decide at the first letter of the next word, unless the whole word is needed ("etc. The").
  // U+FFFC (where an SSML <mark> is, ssml_pipeline.cpp) is no letter to decide at.
  if (candidate_ > 0 && is_word_char(cp) && cp != kObjectReplacement &&
      !sentence_end_needs_next_word(std::string_view(pending_).substr(0, candidate_), rules_))
    resolve_candidate(sink);
  cut_if_too_long(sink);
}

void SentenceSplitter::push_space(bool line_break, const SentenceSink& sink) {
  if (line_break) ++newlines_;
  if (!space_pending_) {
    space_pending_ = true;
    if (candidate_ > 0) resolve_candidate(sink);
    if (ends_with_terminator(pending_)) candidate_ = pending_.size();
  }
  if (newlines_ == 2) emit(pending_.size(), sink);  // a blank line ends a paragraph
}

void SentenceSplitter::resolve_candidate(const SentenceSink& sink) {
  std::size_t candidate = candidate_;
  candidate_ = 0;
  if (pending_.size() <= candidate + 1) return;  // no next word yet: the caller decides
  std::string_view text = pending_;
  if (is_sentence_end(text.substr(0, candidate), text.substr(candidate + 1), rules_))
    emit(candidate, sink);
}

void SentenceSplitter::emit(std::size_t length, const SentenceSink& sink) {
  std::string sentence = pending_.substr(0, length);
  while (!sentence.empty() && sentence.back() == ' ') sentence.pop_back();
  std::size_t rest = length;
  while (rest < pending_.size() && pending_[rest] == ' ') ++rest;
  for (std::size_t at = 0; (at = pending_.find("\xEF\xBF\xBC", at)) < rest; at += 3) --marks_;
  pending_.erase(0, rest);
  candidate_ = candidate_ > rest ? candidate_ - rest : 0;
  if (pending_.empty()) space_pending_ = false;
  if (has_word_char(sentence)) sink(std::move(sentence));
}

void SentenceSplitter::cut_if_too_long(const SentenceSink& sink) {
  // U+FFFC (where an SSML <mark> is) takes no room: the limits count the text without it, so that
  // marks never move a cut (and a long run of marks alone is no reason to scan for one).
  if (pending_.size() - 3 * marks_ <= kMaxSentenceBytes) return;
  auto limit = [&](std::size_t bytes) {
    if (marks_ == 0) return bytes;
    std::size_t at = 0;
    for (std::size_t counted = 0; at < pending_.size() && counted < bytes;)
      if (pending_.compare(at, 3, "\xEF\xBF\xBC") == 0)
        at += 3;
      else
        ++at, ++counted;
    return at;
  };
  const std::size_t max_bytes = limit(kMaxSentenceBytes);
  if (pending_.size() <= max_bytes) return;
  const std::size_t half = limit(kMaxSentenceBytes / 2);
  std::string_view text = pending_;
  std::size_t cut = 0;
  for (char mark : {',', ';', ':'}) {
    std::size_t at = text.rfind(std::string{mark, ' '}, max_bytes - 1);
    if (at != std::string_view::npos && at >= half) cut = std::max(cut, at + 1);
  }
  if (cut == 0) {
    std::size_t space = text.rfind(' ', max_bytes);
    if (space != std::string_view::npos && space > 0) cut = space;
  }
  if (cut == 0) {  // one very long word: cut it at a code point boundary
    cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(pending_[cut]) & 0xC0) == 0x80) --cut;
  }
  emit(cut, sink);
}

std::vector<std::string> split_sentences(std::string_view text, std::string_view language) {
  std::vector<std::string> sentences;
  SentenceSink sink = [&](std::string s) { sentences.push_back(std::move(s)); };
  SentenceSplitter splitter(language);
  splitter.feed(text, sink);
  splitter.finish(sink);
  return sentences;
}

void split_sentences(std::istream& in, const SentenceSink& sink, std::string_view language) {
  SentenceSplitter splitter(language);
  std::string buffer(64 * 1024, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    splitter.feed(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())), sink);
  }
  splitter.finish(sink);
}

}  // namespace tts::frontend
