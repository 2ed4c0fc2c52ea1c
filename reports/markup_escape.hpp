#pragma once
// One escaper for the XML (JUnit) and HTML the reports write: text and attribute values stay
// well-formed whatever a scenario or class is called. The five markup characters become
// entities; control characters that XML 1.0 forbids even as references (all below U+0020
// except tab, newline and carriage return) become U+FFFD, the replacement character.
#include <string>
#include <string_view>

namespace waitroom::reports {

inline std::string markup_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += "\xEF\xBF\xBD";
        else
          out += c;
    }
  }
  return out;
}

}  // namespace waitroom::reports
