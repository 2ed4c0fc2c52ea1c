#pragma once
// Reads a JSON object field by field, checking types and ranges, and reports problems as
// sim::input_error naming the file, the JSON pointer, what was expected and what was found.
// Unknown keys are errors, with the nearest valid key suggested.
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input_error.hpp"

namespace waitroom::models {

using json = nlohmann::json;

// "a number (42)", "a string (\"abc\")": what a user wrote, short.
std::string describe(const json& j);
std::size_t edit_distance(std::string_view a, std::string_view b);
std::string nearest(std::string_view key, const std::vector<std::string>& candidates);
std::string json_pointer_escape(std::string_view key);

struct number_range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  std::string text() const;
};

class object_reader {
 public:
  // Throws when `j` is not an object or has a key not in `allowed`.
  object_reader(const json& j, std::string file, std::string pointer,
                std::vector<std::string> allowed);

  bool has(const std::string& key) const { return j_.contains(key); }
  std::string pointer(const std::string& key) const {
    return pointer_ + "/" + json_pointer_escape(key);
  }
  const std::string& file() const { return file_; }
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& found, const std::string& hint = {}) const;
  // `key` is allowed only when `owner` (e.g. process, mode) is `owner_value`; `chosen` is
  // what the scenario chose. `how` reads "for process", "in release mode"...
  void only_when(const std::string& key, const std::string& how, const std::string& chosen,
                 const std::string& owner, const std::string& owner_value) const;
  // The same as fail, for item `index` of the array at `key`.
  [[noreturn]] void fail_item(const std::string& key, std::size_t index,
                              const std::string& expected, const std::string& found) const;

  double number(const std::string& key, std::optional<double> fallback,
                number_range range = {}) const;
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback,
                       std::int64_t min, std::int64_t max) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string text(const std::string& key, std::optional<std::string> fallback) const;
  // A name printed in tables and on terminals: text that is not empty or blank and holds no
  // control or bidirectional-override character (sim::unprintable_name).
  std::string name(const std::string& key, std::optional<std::string> fallback) const;
  std::string choice(const std::string& key, std::optional<std::string> fallback,
                     const std::vector<std::string>& options) const;
  // A child object, or nullopt when absent and not required.
  std::optional<object_reader> object(const std::string& key, std::vector<std::string> allowed,
                                      bool required) const;
  // A required array; returns it after checking that it is one (with min length).
  const json& array(const std::string& key, std::size_t min_size) const;
  const json& raw(const std::string& key) const { return j_.at(key); }

 private:
  const json& get(const std::string& key) const;
  const json& j_;
  std::string file_;
  std::string pointer_;
};

}  // namespace waitroom::models
