#include "tts/engine/voice_language.h"

#include <algorithm>

#include "tts/frontend/language.h"
#include "tts/frontend/utf8.h"

namespace tts::engine {

std::optional<std::string> language_tag_problem(std::string_view tag) {
  if (tag.empty())
    return std::string("language tag \"\" is empty: leave it out for the voice's first language");
  if (tag.find('\0') != std::string_view::npos)
    return "language tag \"" + frontend::printable(tag) + "\" holds a NUL character";
  return std::nullopt;
}

std::optional<std::size_t> voice_for_language(std::string_view tag,
                                              const std::vector<std::vector<std::string>>& spoken,
                                              std::optional<std::size_t> preferred) {
  if (tag.empty()) return std::nullopt;
  // Four passes, closest first: the tag itself as a voice's first (default) language, then among
  // all its languages, then the primary subtag likewise. A voice whose own language it is reads
  // it best (a bilingual voice's second language is its weaker one); `preferred` wins a tie.
  auto speaks = [&](std::size_t i, bool exact, bool first_only) {
    if (spoken[i].empty()) return false;
    const std::vector<std::string> first{spoken[i].front()};
    const std::vector<std::string>& tags = first_only ? first : spoken[i];
    if (!exact) return frontend::match_language(tag, tags).has_value();
    return std::any_of(tags.begin(), tags.end(), [&](const std::string& have) {
      return frontend::same_language_tag(tag, have);
    });
  };
  for (const bool exact : {true, false})
    for (const bool first_only : {true, false}) {
      if (preferred && *preferred < spoken.size() && speaks(*preferred, exact, first_only))
        return preferred;
      for (std::size_t i = 0; i < spoken.size(); ++i)
        if (speaks(i, exact, first_only)) return i;
    }
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
