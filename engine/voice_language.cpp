#include "tts/engine/voice_language.h"

#include <algorithm>

#include "tts/frontend/language.h"

namespace tts::engine {

std::optional<std::size_t> voice_for_language(std::string_view tag,
                                              const std::vector<std::vector<std::string>>& spoken,
                                              std::optional<std::size_t> preferred) {
  if (tag.empty()) return std::nullopt;
  for (std::size_t i = 0; i < spoken.size(); ++i)
    for (const std::string& have : spoken[i])
      if (frontend::same_language_tag(tag, have)) return i;
  if (preferred && *preferred < spoken.size() && frontend::match_language(tag, spoken[*preferred]))
    return preferred;
  for (std::size_t i = 0; i < spoken.size(); ++i)
    if (frontend::match_language(tag, spoken[i])) return i;
  return std::nullopt;
}

std::string languages_spoken(const std::vector<std::vector<std::string>>& spoken) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto& tags : spoken)
    for (const std::string& tag : tags)
      if (std::find(seen.begin(), seen.end(), tag) == seen.end()) {
        seen.push_back(tag);
        out += (out.empty() ? "" : ", ") + tag;
      }
  return out;
}

}  // namespace tts::engine
