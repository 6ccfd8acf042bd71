#include "xml_reader.h"

#include <cctype>
#include <cstdlib>
#include <unordered_set>

#include "tts/frontend/ssml.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend::detail {

const std::string* XmlNode::attribute(std::string_view key) const {
  for (const auto& [name, value] : attributes)
    if (name == key) return &value;
  return nullptr;
}

namespace {
constexpr int kMaxDepth = 64;

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  XmlNode document() {
    skip_misc();
    if (at_end() || peek() != '<') fail("expected the root element <speak>");
    XmlNode root = element(0);
    skip_misc();
    if (!at_end()) fail("text after the end of the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw SsmlError(line_, column_, message);
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool starts_with(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  void advance(std::size_t n = 1) {
    for (std::size_t k = 0; k < n && pos_ < text_.size(); ++k, ++pos_) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        column_ = 1;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++column_;
      }
    }
  }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) advance();
  }
  void skip_until(std::string_view end, const char* what) {
    while (!at_end() && !starts_with(end)) advance();
    if (at_end()) fail(std::string("unterminated ") + what);
    advance(end.size());
  }
  // White space, comments, the XML declaration and processing instructions.
  void skip_misc() {
    for (;;) {
      skip_space();
      if (starts_with("<!--")) {
        skip_until("-->", "comment");
      } else if (starts_with("<?")) {
        skip_until("?>", "processing instruction");
      } else if (starts_with("<!DOCTYPE")) {
        skip_until(">", "DOCTYPE");
      } else {
        return;
      }
    }
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.' || (static_cast<unsigned char>(c) & 0x80);
  }
  std::string name() {
    std::size_t start = pos_;
    while (!at_end() && name_char(peek())) advance();
    if (pos_ == start) fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  void entity(std::string& out) {
    int line = line_, column = column_;
    std::size_t end = text_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12)
      throw SsmlError(line, column, "unterminated entity reference");
    std::string_view ref = text_.substr(pos_ + 1, end - pos_ - 1);
    static const std::pair<std::string_view, char> kNamed[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    bool known = false;
    for (auto [entity_name, c] : kNamed)
      if (ref == entity_name) {
        out += c;
        known = true;
      }
    if (!known && ref.size() > 1 && ref[0] == '#') {
      bool hex = ref[1] == 'x' || ref[1] == 'X';
      std::string digits(ref.substr(hex ? 2 : 1));
      char* stop = nullptr;
      unsigned long cp = digits.empty() ? 0 : std::strtoul(digits.c_str(), &stop, hex ? 16 : 10);
      if (digits.empty() || *stop != '\0' || cp == 0 || cp > 0x10FFFF ||
          (cp >= 0xD800 && cp <= 0xDFFF))
        throw SsmlError(line, column, "invalid character reference &" + std::string(ref) + ";");
      append_utf8(out, static_cast<char32_t>(cp));
      known = true;
    }
    if (!known) throw SsmlError(line, column, "unknown entity &" + std::string(ref) + ";");
    advance(end - pos_ + 1);
  }
  XmlNode element(int depth) {
    if (depth > kMaxDepth) fail("elements nested more than 64 deep");
    XmlNode node;
    node.line = line_;
    node.column = column_;
    advance();  // '<'
    node.name = name();
    std::unordered_set<std::string>
        keys;  // a repeat found in constant time, however many there are
    for (;;) {
      bool had_space = !at_end() && std::isspace(static_cast<unsigned char>(peek()));
      skip_space();
      if (at_end()) fail("unterminated start tag <" + node.name + ">");
      if (starts_with("/>")) {
        advance(2);
        return node;
      }
      if (peek() == '>') {
        advance();
        break;
      }
      if (!had_space) fail("expected white space, '>' or '/>' in <" + node.name + ">");
      std::string key = name();
      skip_space();
      if (peek() != '=') fail("expected '=' after attribute " + key);
      advance();
      skip_space();
      char quote = peek();
      if (quote != '"' && quote != '\'') fail("attribute " + key + " needs a quoted value");
      advance();
      std::string value;
      while (!at_end() && peek() != quote) {
        if (peek() == '<') fail("'<' in the value of attribute " + key);
        if (peek() == '&') {
          entity(value);
        } else {
          value += peek();
          advance();
        }
      }
      if (at_end()) fail("unterminated value of attribute " + key);
      advance();
      if (!keys.insert(key).second) fail("attribute " + key + " repeated");
      node.attributes.emplace_back(std::move(key), std::move(value));
    }
    content(node, depth);
    return node;
  }
  void content(XmlNode& node, int depth) {
    XmlNode text;
    text.is_text = true;
    auto flush = [&] {
      if (!text.text.empty()) node.children.push_back(std::move(text));
      text = XmlNode();
      text.is_text = true;
      text.line = line_;
      text.column = column_;
    };
    flush();
    for (;;) {
      if (at_end())
        throw SsmlError(node.line, node.column, "element <" + node.name + "> is never closed");
      if (starts_with("</")) {
        flush();
        int line = line_, column = column_;
        advance(2);
        std::string closing = name();
        skip_space();
        if (peek() != '>') fail("expected '>' to end </" + closing + ">");
        if (closing != node.name)
          throw SsmlError(line, column,
                          "</" + closing + "> does not match <" + node.name + "> opened at line " +
                              std::to_string(node.line) + ", column " +
                              std::to_string(node.column));
        advance();
        return;
      }
      if (starts_with("<!--")) {
        skip_until("-->", "comment");
      } else if (starts_with("<![CDATA[")) {
        advance(9);
        std::size_t end = text_.find("]]>", pos_);
        if (end == std::string_view::npos) fail("unterminated CDATA section");
        text.text.append(text_.substr(pos_, end - pos_));
        advance(end - pos_ + 3);
      } else if (starts_with("<?")) {
        skip_until("?>", "processing instruction");
      } else if (peek() == '<') {
        flush();
        node.children.push_back(element(depth + 1));
        flush();
      } else if (peek() == '&') {
        entity(text.text);
      } else {
        text.text += peek();
        advance();
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1, column_ = 1;
};
}  // namespace

XmlNode parse_xml(std::string_view document) {
  if (auto bad = find_invalid_utf8(document))
    throw SsmlError(0, 0, "invalid UTF-8 at byte offset " + std::to_string(*bad));
  return Reader(document).document();
}

}  // namespace tts::frontend::detail
