// Deadline (an SLA-aware release; none of the source articles has it): each release goes to
// the list whose head user is closest to, or furthest past, its class's wait target from
// the scenario's sla block (earliest deadline first on the heads); ties to the earlier list.
// A class's target is the smallest `max` among its wait targets (mean, percentiles, max
// wait) and those for all users; every class needs one.
#include <algorithm>
#include <limits>

#include "models/release/selection.hpp"
#include "models/spec/scenario.hpp"
#include "sim/input_error.hpp"

namespace waitroom::models {

namespace {
bool is_wait_metric(sla_metric m) {
  switch (m) {
    case sla_metric::mean_wait_s:
    case sla_metric::p50_wait_s:
    case sla_metric::p90_wait_s:
    case sla_metric::p95_wait_s:
    case sla_metric::p99_wait_s:
    case sla_metric::p999_wait_s:
    case sla_metric::max_wait_s:
      return true;
    default:
      return false;
  }
}

void finish(const std::optional<sla_spec>& sla, const std::vector<user_class>& classes,
            const std::string& pointer, selection_spec& sel) {
  sel.deadline_s.assign(classes.size(), std::numeric_limits<double>::infinity());
  if (sla)
    for (const auto& t : sla->targets) {
      if (!is_wait_metric(t.metric) || !t.max) continue;
      for (std::size_t c = 0; c < classes.size(); ++c)
        if (t.user_class < 0 || static_cast<std::size_t>(t.user_class) == c)
          sel.deadline_s[c] = std::min(sel.deadline_s[c], *t.max);
    }
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (sel.deadline_s[c] == std::numeric_limits<double>::infinity())
      throw sim::input_error(
          pointer,
          "a wait target with a max (mean_wait_s, p50..p999_wait_s or max_wait_s) in "
          "/sla/targets for every class, since the deadline policy releases by them",
          "none for class \"" + classes[c].name + "\"");
}

int pick(list_selector&, const pick_context& c) {
  const auto& deadline = c.spec->deadline_s;
  int best = list_selector::none;
  double best_slack = 0;
  for (std::uint32_t l = 0; l < c.sizes.size(); ++l) {
    if (c.sizes[l] == 0) continue;
    const std::uint32_t head = c.lists->head(l);
    const double waited = static_cast<double>(c.now_ns - c.people->entry_ns(head)) * 1e-9;
    const double slack = deadline[c.people->cls(head)] - waited;
    if (best == list_selector::none || slack < best_slack) {
      best_slack = slack;
      best = static_cast<int>(l);
    }
  }
  return best;
}
}  // namespace

const selection_policy& deadline_policy() {
  static const selection_policy p{
      .kind = selection_kind::deadline,
      .name = "deadline",
      .doc =
          "the list whose head is closest to (or furthest past) its class's wait target in "
          "the sla block",
      .keys = {},
      .read = [](const object_reader&, const selection_read_context&, selection_spec&) {},
      .write = [](const selection_spec&, const std::vector<std::string>&, json&) {},
      .pick = pick,
      .finish = finish,
  };
  return p;
}

}  // namespace waitroom::models
