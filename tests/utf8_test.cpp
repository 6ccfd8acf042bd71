#include "tts/frontend/utf8.h"

#include <gtest/gtest.h>

#include "tts/frontend/sentence_splitter.h"

using tts::frontend::find_invalid_utf8;
using tts::frontend::InvalidUtf8Error;
using tts::frontend::split_sentences;

TEST(Utf8, AcceptsAsciiAndMultibyte) {
  EXPECT_FALSE(find_invalid_utf8("Hello, world."));
  EXPECT_FALSE(
      find_invalid_utf8("na\xC3\xAFve caf\xC3\xA9 \xE2\x82\xAC"
                        "5 \xF0\x9F\x98\x80"));
}

TEST(Utf8, ReportsOffsetOfFirstBadByte) {
  EXPECT_EQ(find_invalid_utf8("abc\xFFxyz"), 3u);
  EXPECT_EQ(find_invalid_utf8("ab\xC3"), 2u);            // truncated sequence
  EXPECT_EQ(find_invalid_utf8("a\xC0\xAF"), 1u);         // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);     // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xE2\x82z"), 2u);         // bad continuation byte
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
}

// Found by fuzz/text_fuzz (seed fuzz/corpus/text/bad_continuation_at_end): where a sequence was
// cut short by a byte that does not continue it and the text ended before the sequence would
// have, find_invalid_utf8 named the lead byte and the streaming splitter the bad byte.
TEST(Utf8, ABadContinuationIsNamedTheSameWhereverTheTextEnds) {
  EXPECT_EQ(find_invalid_utf8("'.\xE8J"), 3u);
  EXPECT_EQ(find_invalid_utf8("'.\xE8Jxyz"), 3u);
  EXPECT_EQ(find_invalid_utf8("\xF0\x9F"
                              "a"),
            2u);
  EXPECT_EQ(find_invalid_utf8("ab\xF0\x9F"), 2u);  // the text ends inside the sequence: its lead
  for (const char* text : {"'.\xE8J",
                           "\xF0\x9F"
                           "a",
                           "ab\xF0\x9F", "ok \xC3(", "x\xE2\x82"}) {
    std::size_t offset = 0;
    try {
      split_sentences(text);
      ADD_FAILURE() << "split " << text;
    } catch (const InvalidUtf8Error& e) {
      offset = e.offset();
    }
    EXPECT_EQ(offset, find_invalid_utf8(text).value()) << text;
  }
}

TEST(Utf8, DecodesAndEncodesCodePoints) {
  std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
  std::size_t i = 0;
  std::string round_trip;
  for (char32_t expected : {U'a', U'\u00E9', U'\u20AC', U'\U0001F600'}) {
    char32_t cp = tts::frontend::next_code_point(text, i);
    EXPECT_EQ(cp, expected);
    tts::frontend::append_utf8(round_trip, cp);
  }
  EXPECT_EQ(i, text.size());
  EXPECT_EQ(round_trip, text);
  EXPECT_EQ(tts::frontend::code_point_name(0xE9), "U+00E9");
}

TEST(Utf8, RequireValidThrowsWithOffset) {
  EXPECT_NO_THROW(tts::frontend::require_valid_utf8("fine"));
  try {
    tts::frontend::require_valid_utf8("ab\xFF", 10);
    FAIL();
  } catch (const tts::frontend::InvalidUtf8Error& e) {
    EXPECT_EQ(e.offset(), 12u);
  }
}

// Input quoted in a message can neither drive the terminal nor forge lines: "ESC ] 0; title BEL"
// retitled it and "ESC [2J" cleared it when a warning repeated them.
TEST(Utf8, PrintableEscapesControlsAndBadBytes) {
  using tts::frontend::printable;
  EXPECT_EQ(printable("\x1B]0;owned\x07\x1B[2J"), "\\x1B]0;owned\\x07\\x1B[2J");
  EXPECT_EQ(printable("a\nb\rc\x7F"), "a\\x0Ab\\x0Dc\\x7F");
  EXPECT_EQ(printable("\xC2\x9B"
                      "31m"),
            "\\u009B31m");  // C1 CSI, as UTF-8
  EXPECT_EQ(printable("x\xFFy\xE2\x82"), "x\\xFFy\\xE2\\x82");
  const std::string kept = "tab\tcaf\xC3\xA9 \xE2\x82\xAC \\ \xF0\x9F\x98\x80";
  EXPECT_EQ(printable(kept), kept);
  EXPECT_EQ(printable(printable("\x1B[2J")), printable("\x1B[2J"));
}

TEST(Utf8, InvalidBytesAreReplaced) {
  using tts::frontend::replace_invalid_utf8;
  EXPECT_EQ(replace_invalid_utf8("ok caf\xC3\xA9"), "ok caf\xC3\xA9");
  EXPECT_EQ(replace_invalid_utf8("a\xFF"
                                 "b\xC3"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_FALSE(find_invalid_utf8(replace_invalid_utf8("\xE2\x82z\xED\xA0\x80\xC0\xAF")));
}
