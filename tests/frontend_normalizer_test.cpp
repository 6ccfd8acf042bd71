#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

using namespace tts::frontend;

TEST(NumberWords, Cardinals) {
  EXPECT_EQ(en::cardinal(0), "zero");
  EXPECT_EQ(en::cardinal(7), "seven");
  EXPECT_EQ(en::cardinal(15), "fifteen");
  EXPECT_EQ(en::cardinal(40), "forty");
  EXPECT_EQ(en::cardinal(123), "one hundred twenty three");
  EXPECT_EQ(en::cardinal(1000), "one thousand");
  EXPECT_EQ(en::cardinal(1000001), "one million one");
  EXPECT_EQ(en::cardinal(2'500'000'017), "two billion five hundred million seventeen");
  EXPECT_EQ(en::cardinal(18446744073709551615ull).substr(0, 21), "eighteen quintillion ");
}

TEST(NumberWords, OrdinalsYearsDecadesDigits) {
  EXPECT_EQ(en::ordinal(1), "first");
  EXPECT_EQ(en::ordinal(2), "second");
  EXPECT_EQ(en::ordinal(12), "twelfth");
  EXPECT_EQ(en::ordinal(20), "twentieth");
  EXPECT_EQ(en::ordinal(23), "twenty third");
  EXPECT_EQ(en::ordinal(100), "one hundredth");
  EXPECT_EQ(en::year(1987), "nineteen eighty seven");
  EXPECT_EQ(en::year(1905), "nineteen oh five");
  EXPECT_EQ(en::year(1900), "nineteen hundred");
  EXPECT_EQ(en::year(2000), "two thousand");
  EXPECT_EQ(en::year(2004), "two thousand four");
  EXPECT_EQ(en::year(2019), "twenty nineteen");
  EXPECT_EQ(en::decade(1980), "nineteen eighties");
  EXPECT_EQ(en::decade(1900), "nineteen hundreds");
  EXPECT_EQ(en::decade(2000), "two thousands");
  EXPECT_EQ(en::digits("4-09"), "four zero nine");
}

// Golden cases in the style of flite's tests: input text -> the words espeak-ng should be given.
TEST(Normalizer, EnglishGoldenCases) {
  std::ifstream in(std::string(TTS_TEST_DATA_DIR) + "/frontend/normalize_en.tsv");
  ASSERT_TRUE(in) << "missing tests/data/frontend/normalize_en.tsv";
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    EXPECT_EQ(en::normalize(line.substr(0, tab)), line.substr(tab + 1));
    ++cases;
  }
  EXPECT_GE(cases, 15);
}

TEST(Normalizer, SentenceFinalAbbreviationKeepsItsPeriod) {
  EXPECT_EQ(en::normalize("He lives on Main St."), "He lives on Main street.");
  EXPECT_EQ(en::normalize("Call me at 5 p.m."), "Call me at five p m.");
  EXPECT_EQ(en::normalize("Apples, pears, etc."), "Apples, pears, et cetera.");
}

TEST(Normalizer, LeavesWhatEspeakReadsWell) {
  EXPECT_EQ(en::normalize("Platform 3, 3.14, the 4th, 1,000 people."),
            "Platform 3, 3.14, the 4th, 1,000 people.");
  EXPECT_EQ(en::normalize("A score of 3:2 today."), "A score of 3:2 today.");
}

TEST(Normalizer, OnlyEnglishGetsEnglishRules) {
  EXPECT_EQ(normalize_text("Dr. Smith paid $5.", "en-us"), "doctor Smith paid five dollars.");
  EXPECT_EQ(normalize_text("Dr. Smith paid $5.", "en"), "doctor Smith paid five dollars.");
  EXPECT_EQ(normalize_text("Dr. Müller zahlt 5 km.", "de"), "Dr. Müller zahlt 5 km.");
}
