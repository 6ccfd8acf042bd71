// A number written with a fixed count of decimals ("13.64"), for the report's and the vocoder
// choice's lines.
#pragma once

#include <cstdio>
#include <string>

namespace tts::creation {

inline std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

}  // namespace tts::creation
