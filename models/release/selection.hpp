#pragma once
// Every selection policy (which list the next released user comes from), listed once in
// selection_policies(): its name in scenarios, its docs line, its own keys under
// /release/selection, how to read and write them, and how it picks. Adding a policy means
// its own file in policies/, one row in selection.cpp, the schema, the docs and a test
// (docs/ARCHITECTURE.md, "Adding a selection policy").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/json/json_reader.hpp"
#include "models/queues/queues.hpp"
#include "models/release/selector.hpp"
#include "models/spec/release_spec.hpp"
#include "models/spec/sla_spec.hpp"
#include "models/users/users.hpp"
#include "sim/random.hpp"

namespace waitroom::models {

struct user_class;
struct list_spec;

// What a policy's reader may look at besides its own keys.
struct selection_read_context {
  const std::vector<user_class>& classes;
  const std::vector<list_spec>& lists;
  bool tick;  // tick release (else concurrency)
};

// What a policy sees when it picks. The lists' sizes and a random stream always; the
// waiting users themselves (heads and their entry times) in a room, not in unit tests of
// the list-state policies.
struct pick_context {
  const std::vector<std::uint64_t>& sizes;
  sim::rng& rng;
  const queues* lists = nullptr;
  const users* people = nullptr;
  std::int64_t now_ns = 0;
  const selection_spec* spec = nullptr;
};

struct selection_policy {
  selection_kind kind;
  std::string_view name;
  std::string_view doc;           // one line: what it does and where it comes from
  std::vector<std::string> keys;  // its own keys in /release/selection
  // Releases list by list in bulk (the first list's users, then the next ...), not per unit.
  bool in_list_order = false;
  // The policy's name in the Redis choose script (redis/scripts), or empty: a live Redis can
  // pick lists by this policy itself (run --redis mirrors it; others release the model's picks).
  std::string_view redis_choose = {};
  void (*read)(const object_reader& r, const selection_read_context& c,
               selection_spec& out) = nullptr;
  void (*write)(const selection_spec& s, const std::vector<std::string>& class_names,
                json& out) = nullptr;
  // The list for the next released unit, or list_selector::none (nothing to release, or a
  // unit lost to an empty list's share). Unused by the lottery, which draws users instead.
  int (*pick)(list_selector& state, const pick_context& c) = nullptr;
  // After the whole scenario is read: settings derived from other sections (the deadline
  // policy's targets come from the sla block). Throws sim::input_error naming `pointer`.
  void (*finish)(const std::optional<sla_spec>& sla, const std::vector<user_class>& classes,
                 const std::string& pointer, selection_spec& out) = nullptr;
};

const std::vector<selection_policy>& selection_policies();
const selection_policy& selection_policy_of(selection_kind k);
std::vector<std::string> selection_policy_names();

// One number per list (or class) under `key`, each >= 0; probabilities sum to 1, weights
// are not all 0. Shared by the policies that weigh lists.
std::vector<double> read_per_list(const object_reader& o, const std::string& key, std::size_t n,
                                  const std::string& what, bool probabilities);

// The policies' rows (each in its own file under policies/).
const selection_policy& strict_policy();
const selection_policy& ratio_policy();
const selection_policy& probabilistic_policy();
const selection_policy& lottery_policy();
const selection_policy& scheduler_policy();
const selection_policy& deadline_policy();
const selection_policy& guarded_policy();

}  // namespace waitroom::models
