#include "models/planning/first_guess.hpp"

#include <limits>

#include "models/analytic/queueing.hpp"

namespace waitroom::models::planning {

std::optional<bool> closed_form_holds(const scenario& s) {
  const auto est = analytic_for(s);
  if (!est.estimate && !est.unstable) return std::nullopt;
  bool any = false, holds = true;
  for (const auto& t : s.sla->targets) {
    if (t.metric != sla_metric::mean_wait_s) continue;
    double w = std::numeric_limits<double>::infinity();  // unstable: waits grow without bound
    if (est.estimate) {
      const auto& e = *est.estimate;
      if (t.user_class >= 0 && e.overall_only) continue;
      if (t.user_class >= 0) {
        w = e.mean_wait_s[static_cast<std::size_t>(t.user_class)];
      } else if (e.overall_only) {
        w = e.mean_wait_s[0];
      } else {  // everyone: the classes' waits weighted by their arrival shares
        double sum = 0, shares = 0;
        for (std::size_t c = 0; c < s.classes.size(); ++c) {
          sum += s.classes[c].share * e.mean_wait_s[c];
          shares += s.classes[c].share;
        }
        w = sum / shares;
      }
    }
    any = true;
    if ((t.max && w > *t.max) || (t.min && w < *t.min)) holds = false;
  }
  if (!any) return std::nullopt;
  return holds;
}

}  // namespace waitroom::models::planning
