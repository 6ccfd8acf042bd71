// English number words (US style: no "and"), for the normaliser and SSML say-as. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tts::frontend::en {

// 123 -> "one hundred twenty three"; valid for every uint64_t.
std::string cardinal(std::uint64_t n);
// 23 -> "twenty third".
std::string ordinal(std::uint64_t n);
// 1987 -> "nineteen eighty seven", 1905 -> "nineteen oh five", 1900 -> "nineteen hundred",
// 2004 -> "two thousand four", 2019 -> "twenty nineteen"; other values read as cardinals.
std::string year(std::uint64_t y);
// "1980s" style decades: 1980 -> "nineteen eighties", 2000 -> "two thousands".
std::string decade(std::uint64_t y);
// "409" -> "four zero nine": each digit by name; other characters are skipped.
std::string digits(std::string_view text);
// Plural of a number word ("eighty" -> "eighties", "six" -> "sixes").
std::string plural_number_word(std::string_view word);

}  // namespace tts::frontend::en
