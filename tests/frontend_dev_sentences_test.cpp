// The last 10 lines of /work/shared/eval (copied to tests/data/frontend) test normalisation: the
// normaliser must produce the reference words, except for plain numbers, which are left to
// espeak-ng. So: where the normalised text has no digit, its words must equal the reference; and
// for every line, espeak-ng's phonemes of the normalised text must equal its phonemes of the
// reference words (stress and punctuation aside), which checks espeak-ng's own number reading.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>

#include "tts/frontend/normalizer.h"
#include "tts/frontend/phonemizer.h"

using namespace tts::frontend;

namespace {
std::vector<std::string> read_lines(const std::string& name) {
  std::ifstream in(std::string(TTS_TEST_DATA_DIR) + "/frontend/" + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string words_of(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ' && !out.empty() && out.back() != ' ')
      out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Phonemes without stress marks or punctuation, one space between words.
std::string bare_phonemes(const Phonemizer& phonemizer, const std::string& text) {
  std::string out;
  for (char c : phonemizer.phonemize(text))
    if (std::string_view(".,?!;:").find(c) == std::string_view::npos) out += c;
  for (const char* mark : {"\xCB\x88", "\xCB\x8C"})
    for (std::size_t at; (at = out.find(mark)) != std::string::npos;) out.erase(at, 2);
  return out;
}
}  // namespace

TEST(DevSentences, NormalisationMatchesTheReferences) {
  auto sentences = read_lines("dev-sentences.txt");
  auto references = read_lines("dev-references.txt");
  ASSERT_EQ(sentences.size(), 40u);
  ASSERT_EQ(references.size(), 40u);
  Phonemizer phonemizer("en-us");
  for (std::size_t i = 30; i < 40; ++i) {
    std::string normalized = normalize_text(sentences[i], "en-us");
    bool has_digit = std::any_of(normalized.begin(), normalized.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (!has_digit) {
      EXPECT_EQ(words_of(normalized), references[i]) << sentences[i];
    }
    EXPECT_EQ(bare_phonemes(phonemizer, normalized), bare_phonemes(phonemizer, references[i]))
        << sentences[i] << "\n  normalised: " << normalized << "\n  reference: " << references[i];
  }
}
