#include <cctype>

#include "tts/frontend/language.h"

namespace tts::frontend {

namespace {
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
}  // namespace

std::string primary_language(std::string_view tag) {
  std::string out;
  for (char c : tag) {
    if (c == '-' || c == '_') break;
    out += lower(c);
  }
  return out;
}

TextRules text_rules_for(std::string_view tag) {
  const std::string language = primary_language(tag);
  if (language == "en") return TextRules::kEnglish;
  if (language == "es") return TextRules::kSpanish;
  if (language == "fr") return TextRules::kFrench;
  if (language == "it") return TextRules::kItalian;
  if (language == "ru") return TextRules::kRussian;
  return TextRules::kNone;
}

std::string bcp47_casing(std::string_view tag) {
  std::string out;
  std::size_t start = 0;
  bool private_use = false;  // after a private-use "x" everything stays lower case
  for (int part = 0; start <= tag.size(); ++part) {
    std::size_t end = tag.find_first_of("-_", start);
    if (end == std::string_view::npos) end = tag.size();
    std::string sub(tag.substr(start, end - start));
    for (char& c : sub) c = lower(c);
    if (part > 0 && !private_use && sub.size() == 2 && is_alpha(sub[0]) && is_alpha(sub[1])) {
      for (char& c : sub) c = upper(c);
    } else if (part > 0 && !private_use && sub.size() == 4 && is_alpha(sub[0])) {
      sub[0] = upper(sub[0]);
    }
    out += (part == 0 ? "" : "-") + sub;
    if (part > 0 && sub == "x") private_use = true;
    start = end + 1;
  }
  return out;
}

bool looks_like_bcp47(std::string_view tag) {
  std::size_t start = 0;
  for (int part = 0;; ++part) {
    std::size_t end = tag.find('-', start);
    if (end == std::string_view::npos) end = tag.size();
    const std::string_view sub = tag.substr(start, end - start);
    if (part == 0 && (sub.size() < 2 || sub.size() > 3)) return false;
    if (sub.empty() || sub.size() > 8) return false;
    for (char c : sub)
      if (part == 0 ? !is_alpha(c) : !is_alnum(c)) return false;
    if (end == tag.size()) return true;
    start = end + 1;
  }
}

bool same_language_tag(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  auto key = [](char c) { return c == '_' ? '-' : lower(c); };
  for (std::size_t i = 0; i < a.size(); ++i)
    if (key(a[i]) != key(b[i])) return false;
  return true;
}

std::optional<std::size_t> match_language(std::string_view wanted,
                                          const std::vector<std::string>& tags) {
  if (wanted.empty()) return std::nullopt;
  for (std::size_t i = 0; i < tags.size(); ++i)
    if (same_language_tag(wanted, tags[i])) return i;
  const std::string primary = primary_language(wanted);
  for (std::size_t i = 0; i < tags.size(); ++i)
    if (primary_language(tags[i]) == primary) return i;
  return std::nullopt;
}

}  // namespace tts::frontend
