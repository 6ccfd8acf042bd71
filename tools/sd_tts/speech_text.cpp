#include "speech_text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "tts/engine/voice_language.h"
#include "tts/frontend/utf8.h"

namespace tts::speechd {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool unset(std::string_view value) { return value.empty() || value == "NULL"; }

struct Name {
  char c;
  const char* name;
};
constexpr Name kNames[] = {
    {' ', "space"},        {'!', "exclamation"},   {'"', "quote"},     {'#', "hash"},
    {'$', "dollar"},       {'%', "percent"},       {'&', "and"},       {'\'', "apostrophe"},
    {'(', "left paren"},   {')', "right paren"},   {'*', "star"},      {'+', "plus"},
    {',', "comma"},        {'-', "dash"},          {'.', "dot"},       {'/', "slash"},
    {':', "colon"},        {';', "semicolon"},     {'<', "less than"}, {'=', "equals"},
    {'>', "greater than"}, {'?', "question"},      {'@', "at"},        {'[', "left bracket"},
    {'\\', "backslash"},   {']', "right bracket"}, {'^', "caret"},     {'_', "underscore"},
    {'`', "backtick"},     {'{', "left brace"},    {'|', "bar"},       {'}', "right brace"},
    {'~', "tilde"},        {'\t', "tab"},          {'\n', "new line"},
};

const char* ascii_name(char c) {
  for (const Name& n : kNames)
    if (n.c == c) return n.name;
  return nullptr;
}

// Key names of Speech Dispatcher's SSIP KEY command that are not said as they are written.
std::string key_word(const std::string& word) {
  static const std::map<std::string, std::string> kKeys = {
      {"kp-enter", "keypad enter"},
      {"kp-*", "keypad star"},
      {"kp-+", "keypad plus"},
      {"kp--", "keypad minus"},
      {"kp-.", "keypad dot"},
      {"kp-/", "keypad slash"},
      {"prior", "page up"},
      {"next", "page down"},
      {"num-lock", "num lock"},
      {"scroll-lock", "scroll lock"},
      {"double-quote", "double quote"},
      {"underscore", "underscore"},
      {"control", "control"},
      {"window", "windows"},
  };
  if (auto it = kKeys.find(word); it != kKeys.end()) return it->second;
  if (word.size() > 3 && word.compare(0, 3, "kp-") == 0) return "keypad " + word.substr(3);
  if (word.size() >= 2 && word[0] == 'f' &&
      std::all_of(word.begin() + 1, word.end(), [](char c) { return std::isdigit(c); }))
    return "F " + word.substr(1);
  std::string out = word;
  std::replace(out.begin(), out.end(), '-', ' ');
  return out;
}

std::size_t utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xe) return 3;
  if ((lead >> 3) == 0x1e) return 4;
  return 1;
}

bool in_mode(char c, Punctuation mode) {
  static constexpr std::string_view kSome = "#$%&*+/<=>@\\^_`|~";
  static constexpr std::string_view kSentence = ".,;:!?";
  if (mode == Punctuation::kNone) return false;
  if (kSome.find(c) != std::string_view::npos) return true;
  if (mode == Punctuation::kSome) return false;
  bool punct = std::ispunct(static_cast<unsigned char>(c)) != 0;
  if (mode == Punctuation::kMost) return punct && kSentence.find(c) == std::string_view::npos;
  return punct;
}

}  // namespace

float rate_factor(int rate) {
  rate = std::clamp(rate, -100, 100);
  return std::clamp(static_cast<float>(std::exp2(rate / 50.0)), 0.1f, 10.0f);
}

float pitch_semitones(int pitch) { return static_cast<float>(std::clamp(pitch, -100, 100) * 0.12); }

float volume_gain(int volume) {
  return static_cast<float>((std::clamp(volume, -100, 100) + 100) / 200.0);
}

std::optional<int> parse_int(std::string_view text, int lo, int hi) {
  std::string s(text);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || value < lo || value > hi)
    return std::nullopt;
  return static_cast<int>(value);
}

std::string text_of_markup(std::string_view message) {
  const std::string valid = frontend::replace_invalid_utf8(message);
  const std::string_view text = valid;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const char after = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '<' && text.compare(i, 4, "<!--") == 0) {  // a comment, to its end
      const std::size_t end = text.find("-->", i + 4);
      i = end == std::string_view::npos ? text.size() : end + 3;
      out += ' ';
    } else if (c == '<' && (std::isalpha(static_cast<unsigned char>(after)) || after == '/' ||
                            after == '!' || after == '?')) {  // a tag: a space in its place
      const std::size_t end = text.find('>', i);
      i = end == std::string_view::npos ? text.size() : end + 1;
      out += ' ';
    } else if (c == '&') {  // an entity or character reference, when it is one
      static const std::pair<std::string_view, std::string_view> kNamed[] = {
          {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
      bool decoded = false;
      for (const auto& [entity, character] : kNamed)
        if (!decoded && text.compare(i, entity.size(), entity) == 0) {
          out += character;
          i += entity.size();
          decoded = true;
        }
      const std::size_t semicolon = text.find(';', i);
      if (!decoded && after == '#' && semicolon != std::string_view::npos && semicolon - i <= 10) {
        const bool hex = i + 2 < text.size() && (text[i + 2] == 'x' || text[i + 2] == 'X');
        const std::string digits(text.substr(i + (hex ? 3 : 2), semicolon - i - (hex ? 3 : 2)));
        char* stop = nullptr;
        const unsigned long cp = std::strtoul(digits.c_str(), &stop, hex ? 16 : 10);
        if (!digits.empty() && *stop == '\0' && cp > 0 && cp <= 0x10FFFF &&
            (cp < 0xD800 || cp > 0xDFFF)) {
          frontend::append_utf8(out, static_cast<char32_t>(cp));
          i = semicolon + 1;
          decoded = true;
        }
      }
      if (!decoded) out += text[i++];
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> character_name(std::string_view utf8_char) {
  if (utf8_char.size() != 1) return std::nullopt;
  if (const char* name = ascii_name(utf8_char[0])) return std::string(name);
  return std::nullopt;
}

std::string char_ssml(std::string_view character) {
  if (auto name = character_name(character)) return "<speak>" + *name + "</speak>";
  return "<speak><say-as interpret-as=\"characters\">" + xml_escape(character) +
         "</say-as></speak>";
}

std::string key_ssml(std::string_view key) {
  // Modifiers are joined to the key with "_" ("shift_a", "control_alt_delete"); a key that is
  // itself "_" is sent as "underscore", so every "_" separates words.
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= key.size()) {
    std::size_t end = key.find('_', start);
    if (end == std::string_view::npos) end = key.size();
    if (end > start) words.emplace_back(key.substr(start, end - start));
    start = end + 1;
  }
  std::string out = "<speak>";
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (i) out += " ";
    if (utf8_length(static_cast<unsigned char>(word[0])) == word.size()) {
      // One character: its name, or the character spelled ("a", "A", "1", "é").
      if (auto name = character_name(word))
        out += *name;
      else
        out += "<say-as interpret-as=\"characters\">" + xml_escape(word) + "</say-as>";
    } else {
      out += xml_escape(key_word(lower(word)));
    }
  }
  if (words.empty()) out += "space";
  return out + "</speak>";
}

std::optional<Punctuation> parse_punctuation(std::string_view text) {
  std::string value = lower(text);
  if (value == "none") return Punctuation::kNone;
  if (value == "some") return Punctuation::kSome;
  if (value == "most") return Punctuation::kMost;
  if (value == "all") return Punctuation::kAll;
  return std::nullopt;
}

std::string speak_punctuation(std::string_view ssml, Punctuation mode) {
  if (mode == Punctuation::kNone) return std::string(ssml);
  static constexpr std::string_view kSentence = ".,;:!?";
  std::string out;
  out.reserve(ssml.size() + ssml.size() / 4);
  bool in_tag = false;
  char quote = 0;
  for (std::size_t i = 0; i < ssml.size(); ++i) {
    char c = ssml[i];
    if (in_tag) {
      out.push_back(c);
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        in_tag = false;
      }
      continue;
    }
    if (c == '<') {
      in_tag = true;
      out.push_back(c);
      continue;
    }
    char literal = c;
    std::size_t consumed = 1;
    std::string_view original = ssml.substr(i, 1);
    if (c == '&') {  // an entity stands for one character
      static constexpr std::pair<std::string_view, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      bool known = false;
      for (auto [entity, ch] : kEntities) {
        if (ssml.substr(i, entity.size()) == entity) {
          literal = ch;
          consumed = entity.size();
          original = ssml.substr(i, consumed);
          known = true;
          break;
        }
      }
      if (!known) {  // another entity (&#x2026;): left as it is
        out.push_back(c);
        continue;
      }
    }
    if (!in_mode(literal, mode)) {
      out.append(original);
      i += consumed - 1;
      continue;
    }
    const char* name = ascii_name(literal);
    out += " ";
    out += name ? name : "";
    if (kSentence.find(literal) != std::string_view::npos)
      out.append(original);  // keeps the sentence or phrase boundary
    else
      out += " ";
    i += consumed - 1;
  }
  return out;
}

std::string spell_ssml(std::string_view ssml) {
  std::string out;
  out.reserve(ssml.size() * 2);
  int inside = 0;  // depth of say-as, phoneme and sub elements, whose text is theirs
  std::size_t i = 0;
  while (i < ssml.size()) {
    if (ssml[i] == '<') {
      std::size_t end = i + 1;
      char quote = 0;
      while (end < ssml.size() && (quote || ssml[end] != '>')) {
        if (quote && ssml[end] == quote)
          quote = 0;
        else if (!quote && (ssml[end] == '"' || ssml[end] == '\''))
          quote = ssml[end];
        ++end;
      }
      if (end >= ssml.size()) {  // unterminated: left for the SSML parser to report
        out.append(ssml.substr(i));
        break;
      }
      std::string_view tag = ssml.substr(i, end - i + 1);
      bool closing = tag.size() > 2 && tag[1] == '/';
      bool empty = tag.size() > 2 && tag[tag.size() - 2] == '/';
      std::size_t name_start = closing ? 2 : 1, name_end = name_start;
      while (name_end < tag.size() && tag[name_end] != ' ' && tag[name_end] != '/' &&
             tag[name_end] != '>' && tag[name_end] != '\t' && tag[name_end] != '\n')
        ++name_end;
      std::string_view name = tag.substr(name_start, name_end - name_start);
      if (!empty && (name == "say-as" || name == "phoneme" || name == "sub"))
        inside = std::max(0, inside + (closing ? -1 : 1));
      out.append(tag);
      i = end + 1;
      continue;
    }
    std::size_t next = std::min(ssml.find('<', i), ssml.size());
    std::string_view run = ssml.substr(i, next - i);
    bool blank = std::all_of(run.begin(), run.end(),
                             [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    if (inside == 0 && !blank)
      out += "<say-as interpret-as=\"characters\">" + std::string(run) + "</say-as>";
    else
      out.append(run);
    i = next;
  }
  return out;
}

std::map<std::string, std::string> parse_config(std::string_view text) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    auto trim = [](std::string_view s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
      return s;
    };
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::size_t space = line.find_first_of(" \t");
    if (space == std::string_view::npos) continue;
    std::string key = lower(line.substr(0, space));
    std::string_view value = trim(line.substr(space));
    if (!value.empty() && value[0] == '"') {
      std::size_t close = value.find('"', 1);
      value = close == std::string_view::npos ? value.substr(1) : value.substr(1, close - 1);
    } else if (std::size_t hash = value.find('#'); hash != std::string_view::npos) {
      value = trim(value.substr(0, hash));
    }
    out[key] = std::string(value);
  }
  return out;
}

std::string choose_voice(const std::vector<InstalledVoice>& voices,
                         std::string_view synthesis_voice, std::string_view language,
                         std::string_view fallback) {
  if (!unset(synthesis_voice)) {
    std::string wanted = lower(synthesis_voice);
    for (const InstalledVoice& voice : voices)
      if (lower(voice.name) == wanted) return voice.name;
  }
  if (!unset(language)) {
    std::vector<std::vector<std::string>> spoken;
    std::optional<std::size_t> preferred;  // so "en" keeps the configured English voice
    for (const InstalledVoice& voice : voices) {
      if (voice.name == fallback) preferred = spoken.size();
      spoken.push_back(voice.languages);
    }
    if (auto found = engine::voice_for_language(language, spoken, preferred))
      return voices[*found].name;
  }
  return std::string(fallback);
}

}  // namespace tts::speechd
