// SSML semantics on top of the XML reader: prosody scopes, breaks, say-as expansion, sub, phoneme.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "tts/frontend/language.h"
#include "tts/frontend/normalizer.h"
#include "tts/frontend/number_words.h"
#include "tts/frontend/ssml.h"
#include "tts/frontend/utf8.h"
#include "xml_reader.h"

namespace tts::frontend {

SsmlError::SsmlError(int line, int column, const std::string& message)
    : std::runtime_error(line > 0 ? "SSML line " + std::to_string(line) + ", column " +
                                        std::to_string(column) + ": " + printable(message)
                                  : "SSML: " + printable(message)),
      line_(line),
      column_(column) {}

bool looks_like_ssml(std::string_view text) {
  std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  text.remove_prefix(start);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text.substr(0, 6) == "<speak" || text.substr(0, 5) == "<?xml";
}

namespace {
using detail::XmlNode;

// "+10%", "150%", "1.5", "-2st", "+3dB" -> multiplier; named values from `names`; nothing if the
// value is not understood.
struct Named {
  const char* name;
  double value;
};

template <std::size_t N>
bool parse_prosody_value(const std::string& text, const Named (&names)[N], double& value) {
  for (const Named& n : names)
    if (text == n.name) return value = n.value, true;
  // Made once and never destroyed (*new): a synthesis still running when its program exits may use
  // it after static destructors have run, until the engine's exit handler stops it.
  static const std::regex& kNumber = *new std::regex(R"(^([+-]?\d+(?:\.\d+)?)(%|st|dB|Hz)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, kNumber)) return false;
  // strtod, not stod: a number too large for a double is infinite here (refused below), where stod
  // would throw std::out_of_range out of parse_ssml.
  double number = std::strtod(m.str(1).c_str(), nullptr);
  bool relative = text[0] == '+' || text[0] == '-';
  std::string unit = m.str(2);
  if (unit == "%")
    value = relative ? 1.0 + number / 100.0 : number / 100.0;
  else if (unit == "st")
    value = std::pow(2.0, number / 12.0);
  else if (unit == "dB")
    value = std::pow(10.0, number / 20.0);
  else if (unit.empty() && !relative)
    value = number;
  else
    return false;
  return value >= 0.0 && std::isfinite(value);
}

class Interpreter {
 public:
  Interpreter(const std::vector<SpokenLanguage>& languages, std::size_t base)
      : languages_(languages), current_(base) {
    if (languages_.empty()) throw std::invalid_argument("SSML needs the voice's languages");
    if (base >= languages_.size())
      throw std::invalid_argument("SSML base language " + std::to_string(base) + " of " +
                                  std::to_string(languages_.size()));
    for (const SpokenLanguage& l : languages_) tags_.push_back(l.tag);
  }

  SsmlDocument run(const XmlNode& root) {
    if (root.name != "speak")
      throw SsmlError(root.line, root.column,
                      "the root element must be <speak>, not <" + root.name + ">");
    if (const std::string* tag = root.attribute("xml:lang")) current_ = language_of(root, *tag);
    children(root, Prosody{});
    return std::move(document_);
  }

 private:
  // The current language's tag, whose text rules say-as follows.
  const std::string& rules() const { return languages_[current_].tag; }
  bool english() const { return text_rules_for(rules()) == TextRules::kEnglish; }

  // The language of `languages_` that an xml:lang names; one the voice does not speak is read in
  // its default language, as other engines do, with a warning.
  std::size_t language_of(const XmlNode& node, const std::string& tag) {
    if (const auto found = match_language(tag, tags_)) return *found;
    std::string spoken;
    for (const std::string& t : tags_) spoken += (spoken.empty() ? "" : ", ") + t;
    warn(node, "xml:lang=\"" + tag + "\": the voice does not speak it (it speaks " + spoken +
                   "); read in " + tags_.front());
    return 0;
  }

  // The message quotes the document: printable keeps its control characters off the terminal.
  void warn(const XmlNode& node, const std::string& message) {
    document_.warnings.push_back("line " + std::to_string(node.line) + ", column " +
                                 std::to_string(node.column) + ": " + printable(message));
  }
  void add(SsmlSegment::Kind kind, std::string text, const Prosody& prosody, int break_ms = 0) {
    auto& segments = document_.segments;
    if (kind == SsmlSegment::Kind::kSentenceEnd &&
        (segments.empty() || segments.back().kind == kind))
      return;  // </s></p>: one sentence end
    if (kind == SsmlSegment::Kind::kText && !segments.empty() && segments.back().kind == kind &&
        segments.back().prosody == prosody && segments.back().language == current_) {
      segments.back().text += text;  // merge neighbouring text of the same prosody and language
      return;
    }
    segments.push_back({kind, std::move(text), break_ms, prosody, current_});
  }

  void children(const XmlNode& node, const Prosody& prosody) {
    for (const XmlNode& child : node.children) {
      if (child.is_text)
        add(SsmlSegment::Kind::kText, child.text, prosody);
      else
        element(child, prosody);
    }
  }

  void element(const XmlNode& node, const Prosody& prosody) {
    const std::string& name = node.name;
    const std::size_t outer = current_;  // the language around the element, restored after it
    const std::string* tag = node.attribute("xml:lang");
    if (name == "lang" && !tag)
      throw SsmlError(node.line, node.column, "<lang> needs an xml:lang attribute");
    if (tag && (name == "s" || name == "p" || name == "voice" || name == "lang" || name == "speak"))
      current_ = language_of(node, *tag);
    content(node, prosody);
    current_ = outer;
  }

  void content(const XmlNode& node, const Prosody& prosody) {
    const std::string& name = node.name;
    if (name == "s" || name == "p") {
      children(node, prosody);
      add(SsmlSegment::Kind::kSentenceEnd, "", prosody);
    } else if (name == "break") {
      add(SsmlSegment::Kind::kBreak, "", prosody, break_ms(node));
    } else if (name == "prosody") {
      children(node, scoped(node, prosody));
    } else if (name == "say-as") {
      marks_within(node, prosody);
      add(SsmlSegment::Kind::kText, " " + say_as(node) + " ", prosody);
    } else if (name == "sub") {
      const std::string* alias = node.attribute("alias");
      if (!alias) throw SsmlError(node.line, node.column, "<sub> needs an alias attribute");
      marks_within(node, prosody);
      add(SsmlSegment::Kind::kText, " " + *alias + " ", prosody);
    } else if (name == "phoneme") {
      const std::string* alphabet = node.attribute("alphabet");
      const std::string* ph = node.attribute("ph");
      if (!ph) throw SsmlError(node.line, node.column, "<phoneme> needs a ph attribute");
      if (alphabet && *alphabet != "ipa") {
        warn(node, "phoneme alphabet \"" + *alphabet +
                       "\" is not supported (only ipa); the text is read instead");
        children(node, prosody);
      } else {
        marks_within(node, prosody);
        add(SsmlSegment::Kind::kPhonemes, *ph, prosody);
      }
    } else if (name == "mark") {
      add(SsmlSegment::Kind::kMark, mark_name(node), prosody);
      if (!node.children.empty()) {
        warn(node, "<mark> should be empty; its content is read after the mark");
        children(node, prosody);
      }
    } else if (name == "speak" || name == "lang") {
      children(node, prosody);
    } else if (name == "voice") {
      for (const char* choice : {"name", "gender", "age", "variant"})
        if (const std::string* value = node.attribute(choice))
          warn(node, std::string("<voice ") + choice + "=\"" + *value +
                         "\"> is not supported (one voice speaks a request); read with this "
                         "voice");
      children(node, prosody);
    } else {
      warn(node, "unknown element <" + name + "> skipped (its text is still read)");
      children(node, prosody);
    }
  }

  // The marks inside an element whose content is replaced (say-as, sub, phoneme): each is still
  // reported, before the element's words.
  void marks_within(const XmlNode& node, const Prosody& prosody) {
    for (const XmlNode& child : node.children) {
      if (child.is_text) continue;
      if (child.name == "mark") add(SsmlSegment::Kind::kMark, mark_name(child), prosody);
      marks_within(child, prosody);
    }
  }

  std::string mark_name(const XmlNode& node) {
    const std::string* name = node.attribute("name");
    if (!name || name->empty())
      throw SsmlError(node.line, node.column, "<mark> needs a non-empty name attribute");
    if (name->size() > kMaxMarkNameBytes)
      throw SsmlError(node.line, node.column,
                      "<mark> name of " + std::to_string(name->size()) + " bytes (at most " +
                          std::to_string(kMaxMarkNameBytes) + ")");
    for (unsigned char c : *name)
      if (c < 0x20 || c == 0x7F)
        throw SsmlError(node.line, node.column, "<mark> name has a control character");
    return *name;
  }

  int break_ms(const XmlNode& node) {
    if (const std::string* time = node.attribute("time")) {
      static const std::regex& kTime = *new std::regex(R"(^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$)");
      std::smatch m;
      if (!std::regex_match(*time, m, kTime))
        throw SsmlError(node.line, node.column,
                        "break time \"" + *time + "\" is not like 500ms or 1.5s");
      // strtod: digits past a double's range are an infinite time, which is a minute, like any
      // time over a minute (stod would throw std::out_of_range out of parse_ssml).
      double ms = std::strtod(m.str(1).c_str(), nullptr) * (m.str(2) == "s" ? 1000.0 : 1.0);
      return static_cast<int>(std::min(ms, 60000.0) + 0.5);  // at most a minute
    }
    static const Named kStrengths[] = {{"none", 0},     {"x-weak", 100}, {"weak", 250},
                                       {"medium", 400}, {"strong", 750}, {"x-strong", 1200}};
    const std::string* strength = node.attribute("strength");
    if (!strength) return 400;
    for (const Named& s : kStrengths)
      if (*strength == s.name) return static_cast<int>(s.value);
    throw SsmlError(node.line, node.column, "unknown break strength \"" + *strength + "\"");
  }

  Prosody scoped(const XmlNode& node, Prosody prosody) {
    static const Named kRates[] = {{"x-slow", 0.5}, {"slow", 0.75},  {"medium", 1.0},
                                   {"fast", 1.25},  {"x-fast", 1.5}, {"default", 1.0}};
    static const Named kPitches[] = {{"x-low", 0.8}, {"low", 0.9},    {"medium", 1.0},
                                     {"high", 1.1},  {"x-high", 1.2}, {"default", 1.0}};
    static const Named kVolumes[] = {{"silent", 0.0}, {"x-soft", 0.25}, {"soft", 0.5},
                                     {"medium", 1.0}, {"loud", 1.5},    {"x-loud", 2.0},
                                     {"default", 1.0}};
    auto apply = [&](const char* key, const auto& names, double& target, double lowest,
                     double highest) {
      const std::string* text = node.attribute(key);
      if (!text) return;
      double value;
      if (parse_prosody_value(*text, names, value) && (value > 0 || std::string(key) == "volume")) {
        const double wanted = target * value;  // finite: both factors are, and infinity clamps
        target = std::clamp(wanted, lowest, highest);
        if (target != wanted)
          warn(node, std::string("prosody ") + key + "=\"" + *text +
                         "\" goes past what is allowed (ssml.h); kept at the limit");
      } else {
        warn(node, std::string("prosody ") + key + "=\"" + *text + "\" not understood; ignored");
      }
    };
    apply("rate", kRates, prosody.rate, kMinProsodyRate, kMaxProsodyRate);
    apply("pitch", kPitches, prosody.pitch, kMinProsodyPitch, kMaxProsodyPitch);
    apply("volume", kVolumes, prosody.volume, 0.0, kMaxProsodyVolume);
    return prosody;
  }

  std::string say_as(const XmlNode& node) {
    std::string text;
    for (const XmlNode& child : node.children) {
      if (child.is_text)
        text += child.text;
      else if (child.name != "mark")  // marks_within has them
        warn(child, "<" + child.name + "> inside <say-as> skipped");
    }
    const std::string* kind = node.attribute("interpret-as");
    if (!kind) throw SsmlError(node.line, node.column, "<say-as> needs an interpret-as attribute");
    std::string digits_only;
    for (char c : text)
      if (std::isdigit(static_cast<unsigned char>(c))) digits_only += c;
    if (*kind == "characters" || *kind == "spell-out" || (*kind == "digits" && !english())) {
      // A character (code point) at a time: byte by byte split "é" into halves that are not
      // UTF-8 (found by fuzz/ssml_fuzz). The markup is valid UTF-8, checked before parsing.
      std::string spelled;
      for (std::size_t i = 0; i < text.size();) {
        const std::size_t length =
            std::min(utf8_sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
        if (length > 1 || !std::isspace(static_cast<unsigned char>(text[i])))
          spelled.append(text, i, length) += ' ';
        i += length;
      }
      return spelled;
    }
    if (*kind == "digits") return en::digits(text);
    if (*kind == "telephone") return telephone(text);
    if (!spell_cardinal(0, rules())) {
      warn(node, "say-as " + *kind + " is left to espeak-ng for language " + rules());
      return text;
    }
    if ((*kind == "cardinal" || *kind == "ordinal") &&
        (digits_only.empty() || digits_only.size() > 15 ||
         text.find_first_not_of("0123456789, \t\n") != std::string::npos)) {
      warn(node, "say-as " + *kind + " of \"" + text + "\" is not a whole number; read as text");
      return text;
    }
    if (*kind == "cardinal") return *spell_cardinal(std::stoull(digits_only), rules());
    if (*kind == "ordinal") return *spell_ordinal(std::stoull(digits_only), rules());
    if (*kind == "date") return date(node, text);
    if (*kind == "time") return normalize_text(text, rules());
    warn(node, "say-as interpret-as=\"" + *kind + "\" is not supported; read as text");
    return text;
  }

  // The digit groups as written ("+1 (555) 123-4567"), each digit by name and a pause (a comma)
  // between groups; a leading "+" is said too ("plus" in English, espeak-ng's word elsewhere).
  std::string telephone(const std::string& text) {
    std::vector<std::string> groups;
    bool new_group = true;
    for (char c : text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        new_group = true;
        continue;
      }
      if (new_group) groups.emplace_back();
      groups.back() += c;
      new_group = false;
    }
    const std::size_t plus = text.find_first_not_of(" \t\n");
    std::string said =
        plus != std::string::npos && text[plus] == '+' ? (english() ? "plus " : "+ ") : "";
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (i > 0) said += ", ";
      if (english()) {
        said += en::digits(groups[i]);
      } else {
        for (std::size_t k = 0; k < groups[i].size(); ++k)
          said += (k > 0 ? " " : "") + groups[i].substr(k, 1);
      }
    }
    return said;
  }

  std::string date(const XmlNode& node, const std::string& text) {
    static const char* kMonths[12] = {"January",   "February", "March",    "April",
                                      "May",       "June",     "July",     "August",
                                      "September", "October",  "November", "December"};
    static const std::regex& kParts =
        *new std::regex(R"(^\s*(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})\s*$)");
    std::smatch m;
    const std::string* format = node.attribute("format");
    std::string order = format ? *format : "mdy";
    if (!std::regex_match(text, m, kParts) ||
        (order != "mdy" && order != "dmy" && order != "ymd")) {
      warn(node,
           "say-as date \"" + text + "\" (format " + order + ") not understood; read as text");
      return normalize_text(text, rules());
    }
    unsigned long parts[3] = {std::stoul(m.str(1)), std::stoul(m.str(2)), std::stoul(m.str(3))};
    unsigned long y = parts[order.find('y')], mo = parts[order.find('m')],
                  d = parts[order.find('d')];
    if (mo < 1 || mo > 12 || d < 1 || d > 31) {
      warn(node, "say-as date \"" + text + "\" has no such month or day; read as text");
      return text;
    }
    if (!english())  // day-first numeric dates are each language's own rule
      return normalize_text(std::to_string(d) + "/" + std::to_string(mo) + "/" + std::to_string(y),
                            rules());
    return std::string(kMonths[mo - 1]) + " " + en::ordinal(d) + " " + en::year(y);
  }

  std::vector<SpokenLanguage> languages_;
  std::vector<std::string> tags_;  // the languages' BCP 47 tags, for match_language
  std::size_t current_;            // the language of the text being read
  SsmlDocument document_;
};
}  // namespace

SsmlDocument parse_ssml(std::string_view markup, std::string_view language) {
  return parse_ssml(markup, {{bcp47_casing(language), std::string(language)}});
}

SsmlDocument parse_ssml(std::string_view markup, const std::vector<SpokenLanguage>& languages,
                        std::size_t base) {
  return Interpreter(languages, base).run(detail::parse_xml(markup));
}

}  // namespace tts::frontend
