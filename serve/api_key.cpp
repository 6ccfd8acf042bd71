#include "api_key.h"

#include <cctype>

namespace tts::serve {

bool key_matches(const std::string& given, const std::string& key) {
  if (key.empty()) return false;
  unsigned char differ = given.size() == key.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i)
    differ |= static_cast<unsigned char>(given[i] ^ key[i % key.size()]);
  return differ == 0;
}

bool bearer_matches(const std::string& authorization, const std::string& key) {
  static const char scheme[] = "bearer";
  std::size_t at = 0;
  for (; at + 1 < sizeof scheme; ++at)
    if (at >= authorization.size() ||
        std::tolower(static_cast<unsigned char>(authorization[at])) != scheme[at])
      return false;
  if (at >= authorization.size() || (authorization[at] != ' ' && authorization[at] != '\t'))
    return false;
  while (at < authorization.size() && (authorization[at] == ' ' || authorization[at] == '\t')) ++at;
  std::string token = authorization.substr(at);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.pop_back();
  return key_matches(token, key);
}

}  // namespace tts::serve
