// Regex rewriting helpers for the normaliser (internal).
#pragma once

#include <functional>
#include <regex>
#include <string>

namespace tts::frontend::detail {

using Rewrite = std::function<std::string(const std::smatch&)>;

// Replaces every match of `pattern` in `text` by `rewrite(match)`. A match that swallowed the
// sentence's final period ("3 p.m.") gives it back when nothing but punctuation follows.
std::string replace_all(const std::string& text, const std::regex& pattern, const Rewrite& rewrite);

// The English rule groups, applied in this order by en::normalize.
std::string expand_urls_and_emails(const std::string& text);
std::string expand_currency(const std::string& text);
std::string expand_times(const std::string& text);
std::string expand_dates(const std::string& text);
std::string expand_units(const std::string& text);
std::string expand_abbreviations(const std::string& text);

// "1,234" -> 1234; false if it does not fit in 15 digits.
bool parse_integer(const std::string& digits, unsigned long long& value);

}  // namespace tts::frontend::detail
