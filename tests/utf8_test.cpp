#include <gtest/gtest.h>

#include "tts/frontend/utf8.h"

using tts::frontend::find_invalid_utf8;

TEST(Utf8, AcceptsAsciiAndMultibyte) {
  EXPECT_FALSE(find_invalid_utf8("Hello, world."));
  EXPECT_FALSE(find_invalid_utf8("na\xC3\xAFve caf\xC3\xA9 \xE2\x82\xAC" "5 \xF0\x9F\x98\x80"));
}

TEST(Utf8, ReportsOffsetOfFirstBadByte) {
  EXPECT_EQ(find_invalid_utf8("abc\xFFxyz"), 3u);
  EXPECT_EQ(find_invalid_utf8("ab\xC3"), 2u);               // truncated sequence
  EXPECT_EQ(find_invalid_utf8("a\xC0\xAF"), 1u);            // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);        // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xE2\x82z"), 2u);            // bad continuation byte
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);     // past U+10FFFF
}
