#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "tts/frontend/phonemizer.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"

using namespace tts::frontend;
using ::testing::HasSubstr;

TEST(Phonemizer, EnglishIpaWithStressWordBoundariesAndPunctuation) {
  Phonemizer english("en-us");
  EXPECT_EQ(english.phonemize("Hello, world."),
            "h\xC9\x99l\xCB\x88o\xCA\x8A, w\xCB\x88\xC9\x9C\xCB\x90ld.");
  std::string all = english.phonemize("One, two; three: four? Five! Six.");
  for (char mark : std::string(kClausePunctuation))
    EXPECT_NE(all.find(mark), std::string::npos) << mark;
  EXPECT_EQ(std::count(all.begin(), all.end(), ' '), 5);  // six words, one space each
}

TEST(Phonemizer, KeepsNumbersWithInnerPunctuationWhole) {
  Phonemizer english("en-us");
  std::string decimal = english.phonemize("It is 3.14 today");
  EXPECT_EQ(decimal.find('.'), std::string::npos) << decimal;  // "three point one four"
  std::string thousands = english.phonemize("1,000 people");
  EXPECT_EQ(thousands.find(','), std::string::npos) << thousands;
}

TEST(Phonemizer, EllipsisAndQuotes) {
  Phonemizer english("en-us");
  EXPECT_EQ(english.phonemize("Wait\xE2\x80\xA6 what?!"), english.phonemize("Wait. what?"));
  EXPECT_EQ(english.phonemize("\"Yes,\" he said."), english.phonemize("Yes, he said."));
}

TEST(Phonemizer, NothingToSayGivesNothing) {
  Phonemizer english("en-us");
  EXPECT_EQ(english.phonemize(""), "");
  EXPECT_EQ(english.phonemize("  "), "");
}

TEST(Phonemizer, UnknownLanguageNamesTheLanguage) {
  try {
    Phonemizer bad("xx-nowhere");
    FAIL() << "no exception";
  } catch (const UnknownLanguageError& e) {
    EXPECT_EQ(e.language(), "xx-nowhere");
    EXPECT_THAT(e.what(), HasSubstr("\"xx-nowhere\""));
  }
  EXPECT_THROW(Phonemizer(""), UnknownLanguageError);
  // A failed switch leaves other phonemizers working.
  EXPECT_FALSE(Phonemizer("en-us").phonemize("hello").empty());
}

TEST(Phonemizer, LanguageCodesThatAreNotVoiceNamesWork) {
  EXPECT_FALSE(Phonemizer("en-gb").phonemize("hello").empty());
  EXPECT_FALSE(Phonemizer("en").phonemize("hello").empty());
  EXPECT_EQ(Phonemizer("en_GB").language(), "en-gb");
}

TEST(Phonemizer, RejectsInvalidUtf8) {
  EXPECT_THROW(Phonemizer("en-us").phonemize("a\xFF"), InvalidUtf8Error);
}

TEST(Phonemizer, InterleavedLanguagesDoNotLeakIntoEachOther) {
  Phonemizer english("en-us"), german("de");
  std::string en1 = english.phonemize("The weather is nice.");
  std::string de1 = german.phonemize("Das Wetter ist sch\xC3\xB6n.");
  EXPECT_EQ(english.phonemize("The weather is nice."), en1);
  EXPECT_EQ(german.phonemize("Das Wetter ist sch\xC3\xB6n."), de1);
  EXPECT_NE(en1, de1);
}

// espeak-ng is not thread-safe: the lock must make concurrent use give exactly the serial results.
TEST(Phonemizer, FourThreadsMatchSerialResults) {
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"en-us", "Dr. Smith paid $5.20 at 3:45 pm, didn't he? Yes."},
      {"de",
       "Der schnelle braune Fuchs springt \xC3\xBC"
       "ber den faulen Hund."},
      {"en-us", "The quick brown fox jumps over the lazy dog; 1987 was a year."},
      {"es",
       "\xC2\xBF"
       "D\xC3\xB3nde est\xC3\xA1 la biblioteca? Ma\xC3\xB1"
       "ana."},
  };
  std::vector<std::vector<PhonemizedSentence>> serial(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TextPipeline(inputs[i].first).process(inputs[i].second, [&](PhonemizedSentence s) {
      serial[i].push_back(std::move(s));
    });
  std::vector<std::vector<std::string>> parallel(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 25; ++round) {
        const auto& [language, text] = inputs[(t + round) % inputs.size()];
        TextPipeline pipeline(language);
        std::vector<PhonemizedSentence> got;
        pipeline.process(text, [&](PhonemizedSentence s) { got.push_back(std::move(s)); });
        const auto& want = serial[(t + round) % inputs.size()];
        bool same = got.size() == want.size();
        for (std::size_t k = 0; same && k < got.size(); ++k)
          same = got[k].phonemes == want[k].phonemes && got[k].ids == want[k].ids;
        if (!same) parallel[t].push_back(language + ": " + text);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_TRUE(parallel[t].empty()) << "thread " << t << " differs on " << parallel[t].front();
}
