#include "shard_reader.hpp"

#include <fmt/format.h>

#include "models/json/json_reader.hpp"

namespace waitroom::cli {

using nlohmann::json;

shard_fault::shard_fault(const json* at_value, std::string missing, std::string expected_here,
                         std::string found_here)
    : std::runtime_error(expected_here + ", found " + found_here),
      at(at_value),
      key(std::move(missing)),
      expected(std::move(expected_here)),
      found(std::move(found_here)) {}

const json& field(const json& j, const char* key) {
  if (!j.is_object())
    throw shard_fault(&j, {}, fmt::format("an object with '{}'", key), models::describe(j));
  const auto it = j.find(key);
  if (it == j.end()) throw shard_fault(&j, key, "the value waitroom writes there", "none");
  return *it;
}

const json& item(const json& j, std::size_t i) {
  if (!j.is_array() || i >= j.size())
    throw shard_fault(&j, {}, fmt::format("an array of more than {} values", i),
                      models::describe(j));
  return j[i];
}

double number(const json& j) {
  if (!j.is_number()) throw shard_fault(&j, {}, "a number", models::describe(j));
  return j.get<double>();
}

std::string text(const json& j) {
  if (!j.is_string()) throw shard_fault(&j, {}, "a string", models::describe(j));
  return j.get<std::string>();
}

std::vector<double> numbers(const json& j) {
  if (!j.is_array()) throw shard_fault(&j, {}, "an array of numbers", models::describe(j));
  std::vector<double> out;
  out.reserve(j.size());
  for (const auto& x : j) out.push_back(number(x));
  return out;
}

std::vector<std::string> texts(const json& j) {
  if (!j.is_array()) throw shard_fault(&j, {}, "an array of strings", models::describe(j));
  std::vector<std::string> out;
  out.reserve(j.size());
  for (const auto& x : j) out.push_back(text(x));
  return out;
}

std::uint64_t whole_up_to(const json& j, std::uint64_t max) {
  if (j.is_number_unsigned() && j.get<std::uint64_t>() <= max) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<std::int64_t>() >= 0 &&
      static_cast<std::uint64_t>(j.get<std::int64_t>()) <= max)
    return static_cast<std::uint64_t>(j.get<std::int64_t>());
  throw shard_fault(&j, {}, fmt::format("a whole number from 0 to {}", max), models::describe(j));
}

namespace {

bool find(const json& node, const json* target, std::string& path) {
  if (&node == target) return true;
  const std::size_t mark = path.size();
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      path += "/" + models::json_pointer_escape(key);
      if (find(value, target, path)) return true;
      path.resize(mark);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      path += "/" + std::to_string(i);
      if (find(node[i], target, path)) return true;
      path.resize(mark);
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> pointer_to(const json& root, const json* target) {
  std::string path;
  if (!find(root, target, path)) return std::nullopt;
  return path.empty() ? std::string("/") : path;
}

}  // namespace waitroom::cli
