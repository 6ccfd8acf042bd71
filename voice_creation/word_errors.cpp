#include "tts/voice_creation/word_errors.h"

#include <algorithm>

namespace tts::creation {

namespace {

bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

// The recogniser's markup: <...>, [...] and "(digits)".
std::string without_markup(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char close = c == '<' ? '>' : c == '[' ? ']' : 0;
    if (close) {
      const std::size_t end = text.find(close, i + 1);
      if (end != std::string_view::npos) {
        out += ' ';
        i = end;
        continue;
      }
    }
    if (c == '(') {
      std::size_t end = i + 1;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      if (end > i + 1 && end < text.size() && text[end] == ')') {
        out += ' ';
        i = end;
        continue;
      }
    }
    out += c;
  }
  return out;
}

}  // namespace

std::vector<std::string> words_for_scoring(std::string_view text) {
  const std::string plain = without_markup(text);
  std::string kept;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(plain[i]);
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    // General punctuation, U+2000..U+203F (dashes, quotation marks, the ellipsis, spaces): a
    // space, except the single quotation marks U+2018 and U+2019, which are apostrophes.
    if (c == 0xE2 && i + 2 < plain.size() && static_cast<unsigned char>(plain[i + 1]) == 0x80) {
      const unsigned char third = static_cast<unsigned char>(plain[i + 2]);
      if (third != 0x98 && third != 0x99) kept += ' ';
      i += 2;
      continue;
    }
    // Latin-1 punctuation and symbols, U+00A0..U+00BF (no-break space, guillemets, ¿ ¡): a space.
    if (c == 0xC2 && i + 1 < plain.size() && static_cast<unsigned char>(plain[i + 1]) >= 0xA0) {
      kept += ' ';
      i += 1;
      continue;
    }
    if (c == '-' || c == '/') {
      kept += ' ';
    } else if (c == '\'') {
      // dropped: "it's" and "its" are one word to the ear
    } else if (is_word_byte(c) || c == ' ') {
      kept += static_cast<char>(c);
    } else {
      kept += ' ';
    }
  }
  std::vector<std::string> words;
  std::string word;
  for (char c : kept) {
    if (c == ' ') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

WordErrors& WordErrors::operator+=(const WordErrors& other) {
  words += other.words;
  substitutions += other.substitutions;
  deletions += other.deletions;
  insertions += other.insertions;
  return *this;
}

WordErrors count_word_errors(const std::vector<std::string>& reference,
                             const std::vector<std::string>& hypothesis) {
  const std::size_t n = reference.size(), m = hypothesis.size();
  // cost[i][j]: the edits that turn reference[:i] into hypothesis[:j].
  std::vector<std::vector<int>> cost(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) cost[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) cost[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j)
      cost[i][j] = std::min({cost[i - 1][j - 1] + (reference[i - 1] != hypothesis[j - 1] ? 1 : 0),
                             cost[i - 1][j] + 1, cost[i][j - 1] + 1});
  WordErrors counts;
  counts.words = static_cast<int>(n);
  // Walk back, preferring a match or substitution, then a deletion, as wer.py does, so that the
  // kinds of error split the same way.
  std::size_t i = n, j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 &&
        cost[i][j] == cost[i - 1][j - 1] + (reference[i - 1] != hypothesis[j - 1] ? 1 : 0)) {
      if (reference[i - 1] != hypothesis[j - 1]) ++counts.substitutions;
      --i;
      --j;
    } else if (i > 0 && cost[i][j] == cost[i - 1][j] + 1) {
      ++counts.deletions;
      --i;
    } else {
      ++counts.insertions;
      --j;
    }
  }
  return counts;
}

}  // namespace tts::creation
