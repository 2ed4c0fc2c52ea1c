#pragma once
// Reading a shard file's values so that a damaged one is reported by its JSON pointer: the
// accessors below throw shard_fault holding the offending value's address, and in_shard
// finds that address in the shard's document and names `FILE: /units/3/waits/0/wait_s`,
// what was expected there and what was found (nlohmann's own exceptions name neither; its
// JSON_DIAGNOSTICS would, at a memory cost per value for every document of the program).
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input_error.hpp"

namespace waitroom::cli {

// A value of a shard file that is not what waitroom writes there. `at` is the value itself
// (or the object missing `key`), to be located in the document by in_shard.
class shard_fault : public std::runtime_error {
 public:
  shard_fault(const nlohmann::json* at, std::string key, std::string expected, std::string found);
  const nlohmann::json* at;
  std::string key;  // the missing member's name, or empty
  std::string expected, found;
};

// The member `key` of object j.
const nlohmann::json& field(const nlohmann::json& j, const char* key);
// Element i of array j.
const nlohmann::json& item(const nlohmann::json& j, std::size_t i);
// A JSON number (integer or not).
double number(const nlohmann::json& j);
// A JSON string.
std::string text(const nlohmann::json& j);
// An array of numbers, or of strings.
std::vector<double> numbers(const nlohmann::json& j);
std::vector<std::string> texts(const nlohmann::json& j);

// A whole number read from a shard: nlohmann's get<unsigned type> casts a float to it (UB
// past the type's range: fuzz_shard found 1.5e20 in a wait count) and wraps a negative or a
// too large integer. Anything but a whole number in T's range is a shard_fault (exit 2).
std::uint64_t whole_up_to(const nlohmann::json& j, std::uint64_t max);
template <class T>
T whole(const nlohmann::json& j) {
  static_assert(std::is_unsigned_v<T>);
  return static_cast<T>(whole_up_to(j, std::numeric_limits<T>::max()));
}
template <class T>
std::vector<T> whole_vector(const nlohmann::json& j) {
  if (!j.is_array()) throw shard_fault(&j, {}, "an array of whole numbers", "something else");
  std::vector<T> out;
  out.reserve(j.size());
  for (const auto& x : j) out.push_back(whole<T>(x));
  return out;
}

// The JSON pointer of `target` inside `root` ("/" for root itself, as messages show it), or
// nothing when `target` is not one of root's values.
std::optional<std::string> pointer_to(const nlohmann::json& root, const nlohmann::json* target);

// Runs f, which reads `root` (the shard file at `path`) with the accessors above: a
// shard_fault becomes input_error naming the file and the JSON pointer; any other JSON error
// (from a reader not using them) names the file.
template <typename F>
void in_shard(const std::string& path, const nlohmann::json& root, F&& f) {
  try {
    f();
  } catch (const shard_fault& e) {
    const auto where = pointer_to(root, e.at);
    throw sim::input_error(
        path + (where ? ": " + *where + (e.key.empty() ? "" : "/" + e.key) : std::string()),
        e.expected, e.found);
  } catch (const nlohmann::json::exception& e) {
    throw sim::input_error(path, "a well-formed shard file written by waitroom", e.what());
  }
}

}  // namespace waitroom::cli
