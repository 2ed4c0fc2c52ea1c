#pragma once
// Bounds on the wait statistics that count the users still waiting at the end (censored): a
// user still waiting has waited at least its time so far, and may wait any longer. The lower
// bound counts each censored user at its time so far; the upper bound at +infinity, so it is
// finite only where the censored users cannot move the statistic beyond it: a percentile
// whose nearest rank falls among the released users' waits ("decidable"), and the mean and
// the maximum only when nobody is censored.
#include <cstdint>
#include <optional>

#include "models/results/result.hpp"

namespace waitroom::models {

struct stat_bounds {
  double lower;                 // NaN when there are no samples at all
  std::optional<double> upper;  // none: unbounded (censored users could put it anywhere above)
};

// Released (counted) waits plus censored users.
inline std::uint64_t bound_count(const wait_stats& w) {
  return w.wait_s.count() + w.censored_s.count();
}
stat_bounds mean_bounds(const wait_stats& w);
stat_bounds max_bounds(const wait_stats& w);
// Nearest-rank quantile q over released and censored users (bucket midpoints, as
// log_histogram::quantile; identical to it when nobody is censored).
stat_bounds quantile_bounds(const wait_stats& w, double q);

}  // namespace waitroom::models
