// English normalisation driver, URL/e-mail spelling and abbreviations.
#include <cctype>

#include "char_class.h"
#include "regex_rules.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"

namespace tts::frontend {

namespace detail {

std::string replace_all(const std::string& text, const std::regex& pattern,
                        const Rewrite& rewrite) {
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    const std::smatch& match = *it;
    out.append(last, match[0].first);
    out += rewrite(match);
    last = match[0].second;
    if (match.length(0) > 0 && *(match[0].second - 1) == '.') {
      // Letters of any script count (a Cyrillic word after "2 тыс." is more of the sentence).
      const bool only_punctuation = !has_word_char(
          std::string_view(text).substr(static_cast<std::size_t>(last - text.cbegin())));
      if (only_punctuation && (out.empty() || out.back() != '.')) out += '.';
    }
  }
  out.append(last, text.cend());
  return out;
}

bool parse_integer(const std::string& digits, unsigned long long& value) {
  value = 0;
  int count = 0;
  for (char c : digits) {
    if (c == ',') continue;
    if (c < '0' || c > '9' || ++count > 15) return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return count > 0;
}

namespace {
// Spells a URL or e-mail address: separators become words, "www" becomes letters.
std::string spell_address(const std::string& address) {
  std::string out;
  auto word = [&](const char* w) { out += ' ' + std::string(w) + ' '; };
  for (char c : address) {
    switch (c) {
      case '.':
        word("dot");
        break;
      case '/':
        word("slash");
        break;
      case '@':
        word("at");
        break;
      case '-':
        word("dash");
        break;
      case '_':
        word("underscore");
        break;
      case ':':
        word("colon");
        break;
      case '?':
        word("question mark");
        break;
      case '=':
        word("equals");
        break;
      case '&':
        word("and");
        break;
      case '+':
        word("plus");
        break;
      case '#':
        word("hash");
        break;
      case '~':
        word("tilde");
        break;
      default:
        out += c;
    }
  }
  // Made once and never destroyed (*new): a synthesis still running when its program exits may use
  // it after static destructors have run, until the engine's exit handler stops it.
  static const std::regex& kWww = *new std::regex(R"(\bwww\b)");
  out = std::regex_replace(out, kWww, "w w w");
  static const std::regex& kSpaces = *new std::regex(" +");
  out = std::regex_replace(out, kSpaces, " ");
  if (!out.empty() && out.front() == ' ') out.erase(0, 1);
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}
}  // namespace

std::string expand_urls_and_emails(const std::string& text) {
  static const std::regex& kUrl =
      *new std::regex(R"re((?:https?://|\bwww\.)([^\s]*[^\s.,;:!?)"']))re", std::regex::icase);
  static const std::regex& kScheme = *new std::regex(R"(^https?://)", std::regex::icase);
  static const std::regex& kEmail =
      *new std::regex(R"(\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\b)");
  std::string out = replace_all(text, kUrl, [](const std::smatch& m) {
    std::string url = std::regex_replace(m.str(0), kScheme, "");
    while (!url.empty() && url.back() == '/') url.pop_back();
    return spell_address(url);
  });
  return replace_all(out, kEmail, [](const std::smatch& m) { return spell_address(m.str(0)); });
}

std::string expand_abbreviations(const std::string& text) {
  // Dr. and St. depend on their neighbours: a title before a name, a street after one.
  static const std::regex& kTitleBeforeName = *new std::regex(R"(\b(Dr|St)\.(?=\s+[A-Z]))");
  static const std::regex& kStreetAfterName = *new std::regex(R"(\b([A-Z][a-z]+\s+)(Dr|St)\.)");
  static const std::regex& kTitleAlone = *new std::regex(R"(\b(Dr|St)\.)");
  static const std::regex& kBeforeNumber =
      *new std::regex(R"(\b(No|Nos|Fig|Vol|Ch|Nr)\.(?=\s*\d))");
  static const std::regex& kFixed = *new std::regex(
      R"(\b(Mr|Mrs|Ms|Prof|Jr|Sr|Mt|Capt|Sgt|Lt|Col|Gov|Sen|Rep|Rev|Ave|Blvd|Rd|Dept|Inc|Ltd|Corp|approx|vs)\.|\bvs\b|\be\.g\.|\bi\.e\.|\betc\.)");
  std::string out = replace_all(text, kTitleBeforeName, [](const std::smatch& m) {
    return std::string(m.str(1) == "Dr" ? "doctor" : "saint");
  });
  out = replace_all(out, kStreetAfterName, [](const std::smatch& m) {
    return m.str(1) + (m.str(2) == "Dr" ? "Drive" : "street");
  });
  out = replace_all(out, kTitleAlone, [](const std::smatch& m) {
    return std::string(m.str(1) == "Dr" ? "doctor" : "street");
  });
  out = replace_all(out, kBeforeNumber, [](const std::smatch& m) {
    const std::string a = m.str(1);
    if (a == "Fig") return std::string("figure");
    if (a == "Vol") return std::string("volume");
    if (a == "Ch") return std::string("chapter");
    if (a == "Nos") return std::string("numbers");
    return std::string("number");
  });
  static const std::pair<const char*, const char*> kWords[] = {{"Mr.", "mister"},
                                                               {"Mrs.", "missus"},
                                                               {"Ms.", "miz"},
                                                               {"Prof.", "professor"},
                                                               {"Jr.", "junior"},
                                                               {"Sr.", "senior"},
                                                               {"Mt.", "mount"},
                                                               {"Capt.", "captain"},
                                                               {"Sgt.", "sergeant"},
                                                               {"Lt.", "lieutenant"},
                                                               {"Col.", "colonel"},
                                                               {"Gov.", "governor"},
                                                               {"Sen.", "senator"},
                                                               {"Rep.", "representative"},
                                                               {"Rev.", "reverend"},
                                                               {"Ave.", "avenue"},
                                                               {"Blvd.", "boulevard"},
                                                               {"Rd.", "road"},
                                                               {"Dept.", "department"},
                                                               {"Inc.", "incorporated"},
                                                               {"Ltd.", "limited"},
                                                               {"Corp.", "corporation"},
                                                               {"approx.", "approximately"},
                                                               {"vs.", "versus"},
                                                               {"vs", "versus"},
                                                               {"e.g.", "for example"},
                                                               {"i.e.", "that is"},
                                                               {"etc.", "et cetera"}};
  return replace_all(out, kFixed, [](const std::smatch& m) {
    for (auto [abbreviation, word] : kWords)
      if (m.str(0) == abbreviation) return std::string(word);
    return m.str(0);
  });
}

}  // namespace detail

namespace en {
namespace {
// "World War II" -> "World War two", "Chapter IV" -> "Chapter four" (after a word that numbers what
// follows it); "Henry VIII" -> "Henry the eighth" (after a name). A lone "I", "V" or "X" after a
// name stays as it is: "Then I ..." is the pronoun.
std::optional<std::string> say_roman(const detail::RomanNumeral& r) {
  if (detail::word_is_one_of(
          r.word_before, {"chapter", "part",    "volume", "book",     "act",   "scene", "section",
                          "article", "title",   "war",    "phase",    "stage", "level", "type",
                          "class",   "episode", "season", "appendix", "round", "grade", "bowl"}))
    return cardinal(r.value);
  const bool after_a_name =
      detail::capitalised(r.word_before) &&
      !detail::word_is_one_of(
          r.word_before,
          {"the", "a",   "an",   "in", "on", "at",  "of",   "to",   "for", "by",  "with",  "and",
           "or",  "but", "from", "as", "is", "was", "this", "that", "his", "her", "their", "its"});
  if (r.letters.size() >= 2 && after_a_name) return "the " + ordinal(r.value);
  return std::nullopt;
}
}  // namespace

std::string normalize(std::string_view sentence) {
  using namespace detail;
  std::string text(sentence);
  text = expand_urls_and_emails(text);
  text = expand_notation(text);
  text = expand_numero_sign(text, "number");
  text = expand_currency(text);
  text = expand_minus_signs(text, "minus", "plus");
  text = expand_times(text);
  text = expand_dates(text);
  text = expand_units(text);
  text = expand_abbreviations(text);
  text = expand_roman_numerals(text, {}, say_roman);
  static const std::regex& kSpaces = *new std::regex(R"( {2,})");
  return std::regex_replace(text, kSpaces, " ");
}
}  // namespace en

}  // namespace tts::frontend
