// Strict priority with a starvation guard: lists are served in order (the first non-empty
// list, as strict), except that a list whose head has waited at least its bound
// (max_head_wait_s, per list; null: none) goes first, the head furthest past its bound first,
// ties to the earlier list. "VIPs first, but no normal user waits at the head for more than
// ten minutes" without moving users between lists (aging), so Redis keeps one ZADD per user.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/release/selection.hpp"

namespace waitroom::models {

namespace {
constexpr double no_bound = std::numeric_limits<double>::infinity();

int pick(list_selector&, const pick_context& c) {
  const auto& bound = c.spec->max_head_wait_s;
  int first = list_selector::none, overdue = list_selector::none;
  double most_over = 0;
  for (std::uint32_t l = 0; l < c.sizes.size(); ++l) {
    if (c.sizes[l] == 0) continue;
    if (first == list_selector::none) first = static_cast<int>(l);
    if (bound[l] == no_bound) continue;
    const double waited =
        static_cast<double>(c.now_ns - c.people->entry_ns(c.lists->head(l))) * 1e-9;
    const double over = waited - bound[l];
    if (over >= 0 && (overdue == list_selector::none || over > most_over)) {
      most_over = over;
      overdue = static_cast<int>(l);
    }
  }
  return overdue != list_selector::none ? overdue : first;
}

void read(const object_reader& r, const selection_read_context& c, selection_spec& sel) {
  const std::string key = "max_head_wait_s";
  const json& a = r.array(key, 1);
  if (a.size() != c.lists.size())
    r.fail(key, fmt::format("{} values, one per list (seconds, or null for none)", c.lists.size()),
           describe(a));
  sel.max_head_wait_s.clear();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_null()) {
      sel.max_head_wait_s.push_back(no_bound);
      continue;
    }
    if (!a[i].is_number() || !(a[i].get<double>() > 0) || a[i].get<double>() > 1e12)
      r.fail_item(key, i, "a number of seconds above 0 (at most 1e12), or null", describe(a[i]));
    sel.max_head_wait_s.push_back(a[i].get<double>());
  }
  bool any = false;
  for (double b : sel.max_head_wait_s) any = any || b != no_bound;
  if (!any) r.fail(key, "a bound for at least one list (all null is strict)", describe(a));
}

void write(const selection_spec& sel, const std::vector<std::string>&, json& sj) {
  json a = json::array();
  for (double b : sel.max_head_wait_s) a.push_back(b == no_bound ? json(nullptr) : json(b));
  sj["max_head_wait_s"] = a;
}
}  // namespace

const selection_policy& guarded_policy() {
  static const selection_policy p{
      .kind = selection_kind::guarded,
      .name = "guarded",
      .doc =
          "strict list order, except that a list whose head has waited max_head_wait_s goes "
          "first",
      .keys = {"max_head_wait_s"},
      .read = read,
      .write = write,
      .pick = pick,
  };
  return p;
}

}  // namespace waitroom::models
