#pragma once
// Every scenario enum's names, each in one table: the reader's options (in this order, which
// is also the order error messages list them), the writer's value and to_string all come from
// it. Adding a value means one row here.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/json/json_reader.hpp"
#include "models/scenario/scenario.hpp"
#include "models/scores/score_policy.hpp"
#include "models/spec/release_spec.hpp"
#include "sim/distribution.hpp"

namespace waitroom::models {

template <class E>
using name_row = std::pair<E, std::string_view>;

// Specialised below for each enum: `static constexpr std::array<name_row<E>, N> table`.
template <class E>
struct enum_names;

template <>
struct enum_names<ordering> {
  static constexpr std::array<name_row<ordering>, 3> table{
      {{ordering::fifo, "fifo"}, {ordering::offset, "offset"}, {ordering::level, "level"}}};
};
template <>
struct enum_names<time_unit> {
  static constexpr std::array<name_row<time_unit>, 4> table{
      {{time_unit::s, "s"}, {time_unit::ms, "ms"}, {time_unit::us, "us"}, {time_unit::min, "min"}}};
};
// The arrival kinds' names live with the kinds (models/spec/scenario.hpp).
template <>
struct enum_names<arrival_kind> {
  static constexpr const auto& table = arrival_kind_names;
};
template <>
struct enum_names<release_mode> {
  static constexpr std::array<name_row<release_mode>, 4> table{
      {{release_mode::tick, "tick"},
       {release_mode::concurrency, "concurrency"},
       {release_mode::active_users, "active_users"},
       {release_mode::serving_counter, "serving_counter"}}};
};
template <>
struct enum_names<queueing_method> {
  static constexpr std::array<name_row<queueing_method>, 4> table{
      {{queueing_method::fifo, "fifo"},
       {queueing_method::random, "random"},
       {queueing_method::passthrough, "passthrough"},
       {queueing_method::reject, "reject"}}};
};
template <>
struct enum_names<rate_window> {
  static constexpr std::array<name_row<rate_window>, 2> table{
      {{rate_window::fixed, "fixed"}, {rate_window::sliding, "sliding"}}};
};
template <>
struct enum_names<inlet_kind> {
  static constexpr std::array<name_row<inlet_kind>, 2> table{
      {{inlet_kind::periodic, "periodic"}, {inlet_kind::max_size, "max_size"}}};
};
template <>
struct enum_names<controller_kind> {
  static constexpr std::array<name_row<controller_kind>, 3> table{
      {{controller_kind::fixed, "fixed"},
       {controller_kind::tiered, "tiered"},
       {controller_kind::window, "window"}}};
};
template <>
struct enum_names<token_format> {
  static constexpr std::array<name_row<token_format>, 2> table{
      {{token_format::hex, "hex"}, {token_format::signed_hmac, "signed"}}};
};
// The backend's discipline is a flag (processor_sharing); its names still live here.
enum class backend_discipline { fifo, ps };
template <>
struct enum_names<backend_discipline> {
  static constexpr std::array<name_row<backend_discipline>, 2> table{
      {{backend_discipline::fifo, "fifo"}, {backend_discipline::ps, "ps"}}};
};
// The distributions' names are sim's (sim::dist_kind_names), shared with sim::to_string.
template <>
struct enum_names<sim::dist_kind> {
  static constexpr const auto& table = sim::dist_kind_names;
};

// The names in table order, as the reader's options.
template <class E>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& [value, name] : enum_names<E>::table) out.emplace_back(name);
  return out;
}

// A value's name (a string literal, so null-terminated).
template <class E>
const char* name_of(E v) {
  for (const auto& [value, name] : enum_names<E>::table)
    if (value == v) return name.data();
  return enum_names<E>::table.front().second.data();  // unreachable for a valid value
}

template <class E>
std::optional<E> value_of(std::string_view name) {
  for (const auto& [value, n] : enum_names<E>::table)
    if (n == name) return value;
  return std::nullopt;
}

// Reads `key` as one of E's names (error messages list them in table order).
template <class E>
E read_enum(const object_reader& r, const std::string& key, std::optional<E> fallback) {
  std::optional<std::string> f;
  if (fallback) f = std::string(name_of(*fallback));
  return *value_of<E>(r.choice(key, f, names_of<E>()));
}

}  // namespace waitroom::models
