#pragma once
// JSON text as the scenario reader accepts it: nesting at most max_json_depth levels (deeper
// input would exhaust the stack of whatever walks it), each key once per object (nlohmann
// keeps the last silently), numbers within the double range. Errors name `name` and the line
// and column, or the JSON pointer of a repeated key.
#include <string>

#include <nlohmann/json.hpp>

namespace waitroom::models {

inline constexpr int max_json_depth = 256;

// Throws sim::input_error; `name` is the file (or flag) in messages.
nlohmann::json parse_json_strict(const std::string& text, const std::string& name);

// Whether `text` is JSON at all (so --set /p=fifo is the string "fifo"): false only for a
// syntax error; too deep, repeated keys and overflowing numbers (1e400) are JSON, so that
// parse_json_strict reports them as errors instead of their becoming strings.
bool looks_like_json(const std::string& text);

}  // namespace waitroom::models
