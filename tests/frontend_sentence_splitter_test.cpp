#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tts/frontend/sentence_splitter.h"
#include "tts/frontend/utf8.h"

using namespace tts::frontend;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SentenceSplitter, SplitsAtSentenceEnds) {
  EXPECT_THAT(split_sentences("Hello there. How are you? Fine! Thanks."),
              ElementsAre("Hello there.", "How are you?", "Fine!", "Thanks."));
}

TEST(SentenceSplitter, SurvivesAbbreviations) {
  EXPECT_THAT(split_sentences("Mr. Smith met Dr. Jones at St. Paul's. They talked."),
              ElementsAre("Mr. Smith met Dr. Jones at St. Paul's.", "They talked."));
  EXPECT_THAT(split_sentences("Bring fruit, e.g. apples, i.e. the red ones. Then go."),
              ElementsAre("Bring fruit, e.g. apples, i.e. the red ones.", "Then go."));
  EXPECT_THAT(split_sentences("We bought pens, paper, etc. and left. Then we ate."),
              ElementsAre("We bought pens, paper, etc. and left.", "Then we ate."));
  EXPECT_THAT(split_sentences("Apples, pears, etc. The end."),
              ElementsAre("Apples, pears, etc.", "The end."));
  EXPECT_THAT(split_sentences("The U.S. Army and the U.S. economy grew. It was 1999."),
              ElementsAre("The U.S. Army and the U.S. economy grew.", "It was 1999."));
  EXPECT_THAT(split_sentences("He moved to the U.S. He liked it."),
              ElementsAre("He moved to the U.S.", "He liked it."));
  EXPECT_THAT(split_sentences("See No. 5 and Fig. 3 by J. R. R. Tolkien. Done."),
              ElementsAre("See No. 5 and Fig. 3 by J. R. R. Tolkien.", "Done."));
  EXPECT_THAT(split_sentences("We met at 3 p.m. Then we left."),
              ElementsAre("We met at 3 p.m.", "Then we left."));
}

TEST(SentenceSplitter, SurvivesDecimalsUrlsAndEllipses) {
  EXPECT_THAT(split_sentences("Pi is 3.14 or so. Visit example.com today."),
              ElementsAre("Pi is 3.14 or so.", "Visit example.com today."));
  EXPECT_THAT(split_sentences("Wait... what? I thought\xE2\x80\xA6 Maybe not."),
              ElementsAre("Wait... what?", "I thought\xE2\x80\xA6", "Maybe not."));
  EXPECT_THAT(split_sentences("It was born in 1987. 2004 was later."),
              ElementsAre("It was born in 1987.", "2004 was later."));
}

TEST(SentenceSplitter, KeepsQuotesWithTheirSentence) {
  EXPECT_THAT(split_sentences("\"Stop!\" he said. \"Why?\" She asked (quietly.) Ok."),
              ElementsAre("\"Stop!\" he said.", "\"Why?\"", "She asked (quietly.)", "Ok."));
  EXPECT_THAT(split_sentences("\xE2\x80\x9CYes.\xE2\x80\x9D \xE2\x80\x9CNo.\xE2\x80\x9D"),
              ElementsAre("\xE2\x80\x9CYes.\xE2\x80\x9D", "\xE2\x80\x9CNo.\xE2\x80\x9D"));
}

TEST(SentenceSplitter, EmptyAndPunctuationOnlyInputYieldNothing) {
  EXPECT_THAT(split_sentences(""), IsEmpty());
  EXPECT_THAT(split_sentences("   \n\t "), IsEmpty());
  EXPECT_THAT(split_sentences("... !!! ?? -- \xE2\x80\xA6 ()"), IsEmpty());
  EXPECT_THAT(split_sentences("Hi. ... . Bye."), ElementsAre("Hi.", "Bye."));
}

TEST(SentenceSplitter, ControlCharactersBecomeSpacesAndInvisiblesVanish) {
  EXPECT_THAT(split_sentences("Hello\x07world.\r\nNext\tline\x1b here. A\xC2\x85"
                              "B."),
              ElementsAre("Hello world.", "Next line here.", "A B."));
  EXPECT_THAT(split_sentences("zero\xE2\x80\x8Bwidth \xEF\xBB\xBFnon\xC2\xA0"
                              "break."),
              ElementsAre("zerowidth non break."));
}

TEST(SentenceSplitter, BlankLineEndsAParagraph) {
  EXPECT_THAT(split_sentences("A title\n\nThe body starts here\nand goes on."),
              ElementsAre("A title", "The body starts here and goes on."));
}

TEST(SentenceSplitter, CutsLongSentencesAtWordBoundaries) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "word" + std::to_string(i) + " ";
  auto sentences = split_sentences(text);
  ASSERT_GT(sentences.size(), 3u);
  std::string joined;
  for (const auto& s : sentences) {
    EXPECT_LE(s.size(), kMaxSentenceBytes);
    EXPECT_NE(s.front(), ' ');
    EXPECT_NE(s.back(), ' ');
    joined += s + " ";
  }
  EXPECT_EQ(joined, text);  // nothing lost, every cut at a space
}

TEST(SentenceSplitter, PrefersClausePunctuationForCuts) {
  std::string text =
      std::string(250, 'a') + ", " + std::string(100, 'b') + " " + std::string(100, 'c') + " end";
  auto sentences = split_sentences(text);
  ASSERT_EQ(sentences.size(), 2u);
  EXPECT_EQ(sentences[0], std::string(250, 'a') + ",");
}

TEST(SentenceSplitter, CutsAVeryLongWordAtACodePointBoundary) {
  std::string word;
  for (int i = 0; i < 500; ++i) word += "\xC3\xA9";  // é
  auto sentences = split_sentences(word);
  ASSERT_EQ(sentences.size(), 3u);
  std::string joined;
  for (const auto& s : sentences) {
    EXPECT_FALSE(find_invalid_utf8(s));
    EXPECT_LE(s.size(), kMaxSentenceBytes);
    joined += s;
  }
  EXPECT_EQ(joined, word);
}

TEST(SentenceSplitter, StreamingMatchesWholeTextForAnyChunking) {
  std::string text =
      "Dr. Smith paid $5.20 at 3:45 p.m. on Main St. Then he left\xE2\x80\xA6 "
      "\xE2\x80\x9CReally?\xE2\x80\x9D she asked. Caf\xC3\xA9 au lait costs \xE2\x82\xAC"
      "3. End";
  auto whole = split_sentences(text);
  for (std::size_t chunk = 1; chunk <= 7; ++chunk) {
    std::vector<std::string> streamed;
    SentenceSink sink = [&](std::string s) { streamed.push_back(std::move(s)); };
    SentenceSplitter splitter;
    for (std::size_t i = 0; i < text.size(); i += chunk)
      splitter.feed(std::string_view(text).substr(i, chunk), sink);
    splitter.finish(sink);
    EXPECT_EQ(streamed, whole) << "chunk size " << chunk;
  }
}

TEST(SentenceSplitter, EmitsSentencesBeforeTheInputEnds) {
  std::vector<std::string> out;
  SentenceSink sink = [&](std::string s) { out.push_back(std::move(s)); };
  SentenceSplitter splitter;
  splitter.feed("First one. Second", sink);
  EXPECT_THAT(out, ElementsAre("First one."));
  splitter.feed(" one. ", sink);
  EXPECT_THAT(out, ElementsAre("First one."));  // "one." might be "No." before a number
  splitter.feed("Third", sink);
  EXPECT_THAT(out, ElementsAre("First one.", "Second one."));
  splitter.finish(sink);
  EXPECT_THAT(out, ElementsAre("First one.", "Second one.", "Third"));
}

TEST(SentenceSplitter, OneMegabyteStreamsInBoundedMemory) {
  std::string paragraph = "The quick brown fox jumps over the lazy dog. ";
  std::string text;
  while (text.size() < (1u << 20)) text += paragraph;
  std::istringstream in(text);
  std::size_t count = 0, longest = 0;
  split_sentences(in, [&](std::string s) {
    ++count;
    longest = std::max(longest, s.size());
  });
  EXPECT_EQ(count, text.size() / paragraph.size());
  EXPECT_EQ(longest, paragraph.size() - 1);
}

TEST(SentenceSplitter, InvalidUtf8NamesTheStreamOffset) {
  SentenceSplitter splitter;
  SentenceSink sink = [](std::string) {};
  splitter.feed("Hello. ", sink);
  try {
    splitter.feed("ab\xFF", sink);
    FAIL() << "no exception";
  } catch (const InvalidUtf8Error& e) {
    EXPECT_EQ(e.offset(), 9u);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("byte offset 9"));
  }
  SentenceSplitter truncated;
  truncated.feed("abc\xE2\x82", sink);
  EXPECT_THROW(truncated.finish(sink), InvalidUtf8Error);
  EXPECT_THROW(split_sentences("x\xED\xA0\x80"), InvalidUtf8Error);  // surrogate
}
