// Word error rate: what a recogniser heard against what was to be said, both reduced to lowercase
// words without punctuation, aligned by minimum edit distance (unit costs). The same rules as
// tools/quality/wer.py, so that the command's figure and the quality report's are one measure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tts::creation {

// Lowercase words of `text`: recogniser tokens (<s>, <sil>, [NOISE], the alternate-pronunciation
// suffix "(2)") removed, hyphens and slashes made spaces, every other character that is not a
// letter, digit, apostrophe or space dropped, then apostrophes dropped ("it's" sounds as "its").
// Outside ASCII, general punctuation (U+2000..U+203F) and Latin-1 punctuation (U+00A0..U+00BF)
// separate words, curly apostrophes are dropped, and every other character is a letter.
std::vector<std::string> words_for_scoring(std::string_view text);

struct WordErrors {
  int words = 0;  // in the reference
  int substitutions = 0, deletions = 0, insertions = 0;

  int errors() const { return substitutions + deletions + insertions; }
  // Errors per reference word (above 1 with many insertions); 0 for an empty reference.
  double rate() const { return words > 0 ? static_cast<double>(errors()) / words : 0.0; }
  WordErrors& operator+=(const WordErrors& other);
};

WordErrors count_word_errors(const std::vector<std::string>& reference,
                             const std::vector<std::string>& hypothesis);

}  // namespace tts::creation
