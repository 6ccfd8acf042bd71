// A small XML reader for SSML (internal): elements, attributes, text, the five named entities and
// numeric character references, comments, CDATA, the XML declaration and processing instructions.
// No DTDs or namespaces beyond keeping "prefix:name" as the name. Errors carry line and column.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tts::frontend::detail {

struct XmlNode {
  bool is_text = false;
  std::string name;  // element name, or empty for text
  std::string text;  // text content of a text node (entities decoded)
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlNode> children;
  int line = 1, column = 1;  // where the node starts (1-based; columns count code points)

  const std::string* attribute(std::string_view key) const;
};

// Parses a document with exactly one root element. Throws SsmlError (see ssml.h).
XmlNode parse_xml(std::string_view document);

}  // namespace tts::frontend::detail
