#include "models/json/json_reader.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/text_file.hpp"

namespace waitroom::models {

std::string describe(const json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  const char* kind = "a value";
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      kind = "a boolean";
      break;
    case json::value_t::string:
      kind = "a string";
      break;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      kind = "a number";
      break;
    case json::value_t::object:
      kind = "an object";
      break;
    case json::value_t::array:
      kind = "an array";
      break;
    default:
      break;
  }
  return fmt::format("{} ({})", kind, text);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view key, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Suggest only plausible typos: at most a third of the key's letters changed.
  return best_d <= std::max<std::size_t>(2, key.size() / 3) ? best : std::string{};
}

std::string json_pointer_escape(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string number_range::text() const {
  bool has_min = std::isfinite(min), has_max = std::isfinite(max);
  if (has_min && has_max)
    return fmt::format("a number {} {} and <= {}", min_exclusive ? ">" : ">=", min, max);
  if (has_min) return fmt::format("a number {} {}", min_exclusive ? ">" : ">=", min);
  if (has_max) return fmt::format("a number <= {}", max);
  return "a number";
}

object_reader::object_reader(const json& j, std::string file, std::string pointer,
                             std::vector<std::string> allowed)
    : j_(j), file_(std::move(file)), pointer_(std::move(pointer)) {
  std::string where = file_ + ": " + (pointer_.empty() ? "/" : pointer_);
  if (!j_.is_object()) throw sim::input_error(where, "an object", describe(j_));
  for (const auto& [key, value] : j_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint;
    std::string near = nearest(key, allowed);
    if (!near.empty()) {
      hint = "did you mean '" + near + "'?";
    } else {
      std::string all;
      for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + a;
      hint = "valid keys here: " + all;
    }
    throw sim::input_error(file_ + ": " + this->pointer(key), "a known key",
                           "unknown key '" + key + "'", hint);
  }
}

void object_reader::fail(const std::string& key, const std::string& expected,
                         const std::string& found, const std::string& hint) const {
  throw sim::input_error(file_ + ": " + pointer(key), expected, found, hint);
}

void object_reader::fail_item(const std::string& key, std::size_t index,
                              const std::string& expected, const std::string& found) const {
  throw sim::input_error(file_ + ": " + pointer(key) + "/" + std::to_string(index), expected,
                         found);
}

void object_reader::only_when(const std::string& key, const std::string& how,
                              const std::string& chosen, const std::string& owner,
                              const std::string& owner_value) const {
  if (has(key) && chosen != owner_value)
    fail(key, "no '" + key + "' " + how + " '" + chosen + "'", "'" + key + "'",
         "'" + key + "' belongs to " + owner + " '" + owner_value + "'");
}

const json& object_reader::get(const std::string& key) const {
  return j_.at(key);
}

double object_reader::number(const std::string& key, std::optional<double> fallback,
                             number_range range) const {
  if (!has(key)) {
    if (fallback) return *fallback;
    fail(key, range.text(), "nothing (the key is required)");
  }
  const json& v = get(key);
  if (!v.is_number()) fail(key, range.text(), describe(v));
  auto x = v.get<double>();
  bool low = range.min_exclusive ? !(x > range.min) : !(x >= range.min);
  if (!std::isfinite(x) || low || x > range.max) fail(key, range.text(), describe(v));
  return x;
}

std::int64_t object_reader::integer(const std::string& key, std::optional<std::int64_t> fallback,
                                    std::int64_t min, std::int64_t max) const {
  std::string expected = fmt::format("an integer from {} to {}", min, max);
  if (!has(key)) {
    if (fallback) return *fallback;
    fail(key, expected, "nothing (the key is required)");
  }
  const json& v = get(key);
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::floor(d) != d) fail(key, expected, describe(v));
  } else if (!v.is_number_integer()) {
    fail(key, expected, describe(v));
  }
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
    fail(key, expected, describe(v));
  double d = v.get<double>();
  if (d < static_cast<double>(min) || d > static_cast<double>(max))
    fail(key, expected, describe(v));
  return v.is_number_float() ? static_cast<std::int64_t>(d) : v.get<std::int64_t>();
}

bool object_reader::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const json& v = get(key);
  if (!v.is_boolean()) fail(key, "true or false", describe(v));
  return v.get<bool>();
}

std::string object_reader::text(const std::string& key, std::optional<std::string> fallback) const {
  if (!has(key)) {
    if (fallback) return *fallback;
    fail(key, "a string", "nothing (the key is required)");
  }
  const json& v = get(key);
  if (!v.is_string()) fail(key, "a string", describe(v));
  return v.get<std::string>();
}

std::string object_reader::name(const std::string& key, std::optional<std::string> fallback) const {
  std::string v = text(key, std::move(fallback));
  if (const std::string why = sim::unprintable_name(v); !why.empty())
    fail(key, "a name without control or bidirectional-override characters, not empty",
         why + " in " + json(v).dump(-1, ' ', true));  // escaped: the name itself is unsafe
  return v;
}

std::string object_reader::choice(const std::string& key, std::optional<std::string> fallback,
                                  const std::vector<std::string>& options) const {
  std::string all;
  for (const auto& o : options) all += (all.empty() ? "" : ", ") + o;
  std::string expected = "one of: " + all;
  if (!has(key)) {
    if (fallback) return *fallback;
    fail(key, expected, "nothing (the key is required)");
  }
  const json& v = get(key);
  if (!v.is_string()) fail(key, expected, describe(v));
  auto s = v.get<std::string>();
  if (std::find(options.begin(), options.end(), s) == options.end()) {
    std::string near = nearest(s, options);
    fail(key, expected, describe(v), near.empty() ? "" : "did you mean '" + near + "'?");
  }
  return s;
}

std::optional<object_reader> object_reader::object(const std::string& key,
                                                   std::vector<std::string> allowed,
                                                   bool required) const {
  if (!has(key)) {
    if (required) fail(key, "an object", "nothing (the key is required)");
    return std::nullopt;
  }
  return object_reader(get(key), file_, pointer(key), std::move(allowed));
}

const json& object_reader::array(const std::string& key, std::size_t min_size) const {
  std::string expected =
      fmt::format("an array of at least {} item{}", min_size, min_size == 1 ? "" : "s");
  if (!has(key)) fail(key, expected, "nothing (the key is required)");
  const json& v = get(key);
  if (!v.is_array() || v.size() < min_size) fail(key, expected, describe(v));
  return v;
}

}  // namespace waitroom::models
