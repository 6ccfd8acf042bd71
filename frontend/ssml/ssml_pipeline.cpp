#include "tts/frontend/ssml_pipeline.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "../text/char_class.h"
#include "tts/frontend/phonemizer.h"
#include "tts/frontend/sentence_splitter.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {

// Where a <mark> is in a run of text while the run is split into sentences: U+FFFC (OBJECT
// REPLACEMENT CHARACTER, "an object goes here"). The splitter keeps it as a word character, so a
// sentence holding only marks is not dropped; the same character in the document's text is read
// as a space (process_ssml), so every one in a run is a mark.
constexpr std::string_view kMarkSentinel = "\xEF\xBF\xBC";

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    if (end > i) words.push_back(text.substr(i, end - i));
    i = end + 1;
  }
  return words;
}

std::string join(const std::vector<std::string_view>& words, std::size_t from, std::size_t to) {
  std::string text;
  for (std::size_t i = from; i < to; ++i) {
    if (!text.empty()) text += ' ';
    text += words[i];
  }
  return text;
}

// The index in `ids` (BOS first) of the first symbol of phoneme word `word`, or ids.size() when
// there is no such word (a mark after the last word: the sentence's end).
std::size_t symbol_of_word(const SymbolTable& table, const std::string& phonemes, std::size_t word,
                           std::size_t id_count) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < phonemes.size();) {
    std::size_t end = phonemes.find(' ', i);
    if (end == std::string::npos) end = phonemes.size();
    if (end > i) {
      if (seen == word) return 1 + table.tokenize(std::string_view(phonemes).substr(0, i)).size();
      ++seen;
    }
    i = end + 1;
  }
  return id_count;
}

// The letters of phonemes without stress marks, punctuation and spaces.
void letters_of(std::string_view phonemes, std::vector<char32_t>& letters) {
  for (std::size_t i = 0; i < phonemes.size();) {
    const char32_t cp = next_code_point(phonemes, i);
    const bool punctuation =
        cp < 0x80 && kClausePunctuation.find(static_cast<char>(cp)) != std::string_view::npos;
    if (cp != ' ' && cp != 0x2C8 && cp != 0x2CC && !punctuation) letters.push_back(cp);
  }
}

// Where in `whole` (the sentence's phonemes) each stretch of `stretches` (the same sentence's
// words between marks, phonemised alone) starts, in phoneme words of `whole`: the two are aligned
// letter by letter (edit distance, stress and punctuation left out), and a stretch starting inside
// a word of `whole` starts with that word. espeak-ng fuses some words ("that the" is "ðætðə") and
// reads words alone a little differently ("a" alone is "ˈeɪ"), so the counts alone do not say.
std::vector<std::size_t> align_stretches(const std::string& whole,
                                         const std::vector<std::string>& stretches) {
  std::vector<char32_t> a, b;
  std::vector<std::size_t> a_word, b_start;
  const std::size_t words = words_of(whole).size();
  std::size_t words_seen = 0;
  for (std::string_view w : words_of(whole)) {  // each letter of `whole` with its word
    letters_of(w, a);
    a_word.resize(a.size(), words_seen++);
  }
  for (const std::string& s : stretches) {
    b_start.push_back(b.size());
    letters_of(s, b);
  }
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> at_word(stretches.size(), 0);
  if (n == 0 || m == 0 || n * m > 4000000) {  // nothing to align, or too long: in proportion
    for (std::size_t c = 1; c < stretches.size(); ++c)
      at_word[c] = m == 0 ? 0 : std::min(words, b_start[c] * words / m);
    return at_word;
  }
  std::vector<std::uint32_t> cost((n + 1) * (m + 1));
  auto d = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return cost[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) d(i, 0) = static_cast<std::uint32_t>(i);
  for (std::size_t j = 0; j <= m; ++j) d(0, j) = static_cast<std::uint32_t>(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j)
      d(i, j) = std::min(
          {d(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0u : 1u), d(i - 1, j) + 1, d(i, j - 1) + 1});
  std::vector<std::size_t> a_of_b(m + 1, n);  // the letter of `whole` each letter of b meets
  for (std::size_t i = n, j = m; j > 0;) {
    if (i > 0 && d(i, j) == d(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0u : 1u)) {
      a_of_b[--j] = --i;
    } else if (i > 0 && d(i, j) == d(i - 1, j) + 1) {
      --i;
    } else {
      a_of_b[--j] = i;
    }
  }
  for (std::size_t c = 1; c < stretches.size(); ++c) {  // the first starts with the first word
    const std::size_t i = a_of_b[b_start[c]];
    at_word[c] = i < n ? a_word[i] : words;
    at_word[c] = std::max(at_word[c], at_word[c - 1]);
  }
  return at_word;
}

// One sentence of a run, its marks (the sentinels in it) mapped to symbols. A mark falls before
// the word after it; one inside a word, before that word. The phonemes are those of the sentence
// without its marks, so marks never change what is said. To find the words, each stretch of words
// between marks is also phonemised alone: where the stretches' phoneme words add up to the whole
// sentence's they are counted off; otherwise (the normaliser reads text differently on either
// side of a mark, or espeak-ng fuses two words) they are aligned to it (align_stretches).
PhonemizedSentence marked_sentence(const TextPipeline& pipeline, std::size_t language,
                                   const std::string& sentence,
                                   const std::vector<std::string>& names, std::size_t& used) {
  if (sentence.find(kMarkSentinel) == std::string::npos)
    return pipeline.process_sentence(sentence, language);
  std::string clean;
  std::vector<std::size_t> at;  // byte offset in `clean` of each mark of the sentence
  for (std::size_t i = 0; i < sentence.size();) {
    if (sentence.compare(i, kMarkSentinel.size(), kMarkSentinel) != 0) {
      clean += sentence[i++];
      continue;
    }
    std::size_t j = i;
    while (sentence.compare(j, kMarkSentinel.size(), kMarkSentinel) == 0) j += kMarkSentinel.size();
    const bool in_word =
        !clean.empty() && clean.back() != ' ' && j < sentence.size() && sentence[j] != ' ';
    std::size_t pos = clean.size();
    if (in_word) {  // inside a word: before the word
      const std::size_t space = clean.rfind(' ');
      pos = space == std::string::npos ? 0 : space + 1;
    }
    for (; i < j; i += kMarkSentinel.size()) at.push_back(pos);
  }
  const std::vector<std::string_view> words = words_of(clean);
  std::vector<std::size_t> mark_words;  // text word before which each mark falls
  for (std::size_t pos : at)
    mark_words.push_back(words_of(std::string_view(clean).substr(0, pos)).size());
  const std::string text = join(words, 0, words.size());

  PhonemizedSentence out;
  if (detail::has_word_char(text)) {
    out = pipeline.process_sentence(text, language);
  } else {
    out.text = text;  // nothing to say: its marks fall where it would have been
  }
  std::vector<std::size_t> cuts{0};  // text words where a stretch starts, then the end
  for (std::size_t w : mark_words)
    if (w > cuts.back() && w < words.size()) cuts.push_back(w);
  cuts.push_back(words.size());
  std::vector<std::size_t> phoneme_words{0};  // phoneme words before each cut
  if (!out.phonemes.empty() && cuts.size() > 2) {
    std::vector<std::string> stretches;
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      try {
        stretches.push_back(
            pipeline.process_sentence(join(words, cuts[c], cuts[c + 1]), language).phonemes);
      } catch (const std::exception&) {  // the whole sentence could be said: use what it says
        stretches.emplace_back();
      }
      phoneme_words.push_back(phoneme_words.back() + words_of(stretches.back()).size());
    }
    if (phoneme_words.back() != words_of(out.phonemes).size()) {
      phoneme_words = align_stretches(out.phonemes, stretches);
      phoneme_words.push_back(words_of(out.phonemes).size());
    }
  } else {
    phoneme_words.assign(cuts.size(), 0);
    if (!out.phonemes.empty()) phoneme_words.back() = words_of(out.phonemes).size();
  }
  for (std::size_t m = 0; m < mark_words.size() && used < names.size(); ++m, ++used) {
    // The stretch the mark starts (or the end); its first phoneme word.
    const auto cut = static_cast<std::size_t>(
        std::lower_bound(cuts.begin(), cuts.end(), mark_words[m]) - cuts.begin());
    out.marks.push_back({names[used], symbol_of_word(pipeline.symbols(), out.phonemes,
                                                     phoneme_words[cut], out.ids.size())});
  }
  return out;
}

}  // namespace

void process_ssml(const SsmlDocument& document, const TextPipeline& pipeline,
                  const SsmlHandlers& handlers) {
  for (const auto& segment : document.segments)
    if (segment.language >= pipeline.languages().size())
      throw std::invalid_argument("SSML parsed for more languages than the text pipeline speaks");
  // Text of equal prosody and language, phonemised together so sentences split naturally.
  std::string run;
  Prosody run_prosody;
  std::size_t run_language = 0;
  std::vector<std::string> run_marks;  // the names of the sentinels in `run`, in order
  std::vector<std::string> pending;    // marks after the run's text: they go with the next text
  auto mark = [&](const std::string& name) {
    if (handlers.mark) handlers.mark(name);
  };
  auto deliver = [&](PhonemizedSentence s, const Prosody& prosody) {
    if (s.phonemes.empty()) {  // nothing to say: its marks are where it would have been
      for (const auto& m : s.marks) mark(m.name);
      s.marks.clear();
    }
    handlers.sentence(std::move(s), prosody);
  };
  auto add_pending = [&] {
    for (auto& name : pending) {
      run += kMarkSentinel;
      run_marks.push_back(std::move(name));
    }
    pending.clear();
  };
  // `with_pending`: the marks waiting for text end this run (a break, </s>, the document's end).
  auto flush = [&](bool with_pending) {
    if (with_pending) add_pending();
    if (!run.empty()) {
      std::size_t used = 0;
      SentenceSink each = [&](std::string sentence) {
        PhonemizedSentence s = marked_sentence(pipeline, run_language, sentence, run_marks, used);
        if (!detail::has_word_char(s.text)) {  // only marks (the splitter keeps them)
          for (const auto& m : s.marks) mark(m.name);
          return;
        }
        deliver(std::move(s), run_prosody);
      };
      SentenceSplitter splitter(pipeline.languages()[run_language].tag);
      splitter.feed(run, each);
      splitter.finish(each);
      for (; used < run_marks.size(); ++used) mark(run_marks[used]);  // none expected
    }
    run.clear();
    run_marks.clear();
  };
  for (const auto& segment : document.segments) {
    switch (segment.kind) {
      case SsmlSegment::Kind::kText: {
        if (!(segment.prosody == run_prosody) || segment.language != run_language) flush(false);
        run_prosody = segment.prosody;
        run_language = segment.language;
        std::string text;  // the document's own U+FFFC read as spaces, in one pass
        text.reserve(segment.text.size());
        for (std::size_t at = 0; at < segment.text.size();) {
          const std::size_t next =
              std::min(segment.text.find(kMarkSentinel, at), segment.text.size());
          text.append(segment.text, at, next - at);
          if (next < segment.text.size()) text += ' ';
          at = next + (next < segment.text.size() ? kMarkSentinel.size() : 0);
        }
        // Marks go with the next text that has something in it (white space between a mark and a
        // <prosody> does not keep it from the words it is before).
        if (text.find_first_not_of(" \t\r\n") != std::string::npos) add_pending();
        run += text;
        break;
      }
      case SsmlSegment::Kind::kPhonemes: {
        flush(false);
        PhonemizedSentence s;
        s.text = s.phonemes = segment.text;
        s.ids = pipeline.symbols().encode(segment.text, segment.text);
        for (auto& name : pending) s.marks.push_back({std::move(name), 1});
        pending.clear();
        deliver(std::move(s), segment.prosody);
        break;
      }
      case SsmlSegment::Kind::kBreak:
        flush(true);
        handlers.pause(segment.break_ms);
        break;
      case SsmlSegment::Kind::kSentenceEnd:
        flush(true);
        break;
      case SsmlSegment::Kind::kMark:
        pending.push_back(segment.text);
        break;
    }
  }
  flush(true);
}

}  // namespace tts::frontend
