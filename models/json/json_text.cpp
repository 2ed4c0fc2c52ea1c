#include "models/json/json_text.hpp"

#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "models/json/json_reader.hpp"
#include "sim/input_error.hpp"

namespace waitroom::models {

namespace {

std::string line_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("line {}, column {}", line, col);
}

// Follows the parser's events to know where it is: the enclosing objects' keys and arrays'
// indices, and the keys seen so far in each open object.
class structure_check {
 public:
  explicit structure_check(std::string name) : name_(std::move(name)) {}

  bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using ev = nlohmann::json::parse_event_t;
    switch (event) {
      case ev::object_start:
      case ev::array_start:
        if (depth >= max_json_depth)
          throw sim::input_error(name_ + ": " + here(),
                                 fmt::format("JSON nested at most {} levels deep", max_json_depth),
                                 "deeper nesting");
        frames_.push_back({event == ev::object_start, {}, {}, 0});
        break;
      case ev::key: {
        auto& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw sim::input_error(name_ + ": " + here(), "each key once in an object",
                                 "'" + f.key + "' twice",
                                 "JSON readers disagree on which one counts");
        break;
      }
      case ev::object_end:
      case ev::array_end:
        frames_.pop_back();
        next_item();
        break;
      case ev::value:
        next_item();
        break;
    }
    return true;
  }

 private:
  struct frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };
  void next_item() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  std::string here() const {
    std::string p;
    for (const auto& f : frames_)
      p += "/" + (f.object ? json_pointer_escape(f.key) : std::to_string(f.index));
    // Deep nesting: the start and the depth, not thousands of levels.
    if (p.size() > 80) p = p.substr(0, 40) + "/... (" + std::to_string(frames_.size()) + " levels)";
    return p.empty() ? "/" : p;
  }
  std::string name_;
  std::vector<frame> frames_;
};

// A number written with a non-zero digit that a double reads as 0 (1e-400 underflows): the
// parser gives 0 without a word, so a rate of 1e-400 would be a rate of 0.
void refuse_underflow(const std::string& text, const std::string& name) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = i;
    bool nonzero = false, exponent = false;
    while (end < text.size() && std::strchr("0123456789+-.eE", text[end]) != nullptr) {
      if (text[end] == 'e' || text[end] == 'E') exponent = true;
      if (!exponent && text[end] >= '1' && text[end] <= '9') nonzero = true;
      ++end;
    }
    const std::string token = text.substr(i, end - i);
    if (nonzero && exponent && std::strtod(token.c_str(), nullptr) == 0.0)
      throw sim::input_error(name + ": " + line_column(text, i + 1),
                             "a number a double can hold (non-zero numbers from about 5e-324)",
                             "'" + token + "', which would read as 0");
    i = end - 1;
  }
}

}  // namespace

nlohmann::json parse_json_strict(const std::string& text, const std::string& name) {
  try {
    nlohmann::json j = nlohmann::json::parse(text, structure_check(name));
    refuse_underflow(text, name);
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("syntax error");
    std::string detail = pos == std::string::npos ? what : what.substr(pos);
    throw sim::input_error(name + ": " + line_column(text, e.byte), "well-formed JSON", detail);
  } catch (const nlohmann::json::exception& e) {
    // A number beyond the double range ("number overflow parsing '1e400'"): find it for the
    // line and column.
    std::string what = e.what();
    std::string where = name;
    if (auto q = what.find('\''); q != std::string::npos) {
      const auto r = what.find('\'', q + 1);
      const std::string token = what.substr(q + 1, r == std::string::npos ? r : r - q - 1);
      if (auto at = text.find(token); !token.empty() && at != std::string::npos)
        where += ": " + line_column(text, at + 1);
      what = "'" + token + "'";
    }
    throw sim::input_error(where, "a number within the double range (about ±1.8e308)", what);
  }
}

bool looks_like_json(const std::string& text) {
  if (nlohmann::json::accept(text)) return true;
  // accept() is false for a number past the double range too: that is an error, not a word.
  try {
    [[maybe_unused]] const auto parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range&) {
    return true;
  } catch (const nlohmann::json::exception&) {
  }
  return false;
}

}  // namespace waitroom::models
