#include "models/release/selection.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace waitroom::models {

const selection_policy& selection_policy_of(selection_kind k) {
  // No default: a selection_kind without a row is a compile error (-Wswitch, warnings are
  // errors), not a silent fallback to another policy.
  switch (k) {
    case selection_kind::strict:
      return strict_policy();
    case selection_kind::ratio:
      return ratio_policy();
    case selection_kind::probabilistic:
      return probabilistic_policy();
    case selection_kind::lottery:
      return lottery_policy();
    case selection_kind::scheduler:
      return scheduler_policy();
    case selection_kind::deadline:
      return deadline_policy();
    case selection_kind::guarded:
      return guarded_policy();
  }
  throw std::logic_error(
      fmt::format("selection_policy_of: no policy of kind {}", static_cast<int>(k)));
}

const std::vector<selection_policy>& selection_policies() {
  static const std::vector<selection_policy> table = [] {
    std::vector<selection_policy> rows;
    for (selection_kind k : all_selection_kinds) {
      rows.push_back(selection_policy_of(k));
      if (rows.back().kind != k)
        throw std::logic_error(
            fmt::format("selection policy '{}' is filed under another kind", rows.back().name));
    }
    return rows;
  }();
  return table;
}

std::vector<std::string> selection_policy_names() {
  std::vector<std::string> out;
  for (const auto& p : selection_policies()) out.emplace_back(p.name);
  return out;
}

const char* to_string(selection_kind k) {
  return selection_policy_of(k).name.data();
}

std::vector<double> read_per_list(const object_reader& o, const std::string& key, std::size_t n,
                                  const std::string& what, bool probabilities) {
  const json& a = o.array(key, 1);
  if (a.size() != n) o.fail(key, fmt::format("{} numbers, one per {}", n, what), describe(a));
  std::vector<double> v;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!a[i].is_number() || a[i].get<double>() < 0 || a[i].get<double>() > 1e12)
      o.fail_item(key, i, "a number >= 0", describe(a[i]));
    v.push_back(a[i].get<double>());
    sum += v.back();
  }
  if (probabilities && std::abs(sum - 1.0) > 1e-9)
    o.fail(key, "probabilities that sum to 1", fmt::format("a sum of {:.9g}", sum));
  if (!probabilities && sum <= 0) o.fail(key, "at least one weight above 0", describe(a));
  return v;
}

}  // namespace waitroom::models
