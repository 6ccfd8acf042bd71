#include "tts/frontend/utf8.h"

#include <gtest/gtest.h>

using tts::frontend::find_invalid_utf8;

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
