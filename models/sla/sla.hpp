#pragma once
// Service-level targets (the scenario's "sla" block) and their evaluation over independent
// replications. A target passes when its whole confidence interval is on the right side of
// the limit: decisions rest on the confidence bound, never on the point estimate.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/results/result.hpp"
#include "models/spec/sla_spec.hpp"
#include "sim/confidence.hpp"

namespace waitroom::models {

// One metric of one replication's result (class -1: overall): NaN when it has no data (a
// wait metric of a class with no released user after warm-up, a share of nobody).
double metric_value(const room_result& r, std::int32_t user_class, sla_metric m);
// The wait metrics (mean, percentiles, max): the ones users still waiting can move.
bool is_wait_metric(sla_metric m);
// Where the metric would be if users still waiting at the end were counted: {lower, upper}
// (see models/results/censoring.hpp; upper +inf when unbounded). {v, v} when nobody is censored.
std::pair<double, double> metric_bounds(const room_result& r, std::int32_t user_class,
                                        sla_metric m);
// The metric over replications: t interval at `confidence`.
sim::interval metric_interval(const std::vector<room_result>& rs, std::int32_t user_class,
                              sla_metric m, double confidence);

// Every metric of one replication, per class (index 0: all users, then the classes): what
// intervals and SLA decisions need, small enough to write to a shard file and merge.
// A row: the metrics' values, then their lower bounds, then their upper bounds (each indexed
// by sla_metric), then aux_count figures: released (counted) users, censored users, and all
// counted users.
using metric_row = std::vector<double>;
using metric_table = std::vector<metric_row>;
enum metric_aux : std::size_t { aux_released, aux_censored, aux_counted, aux_count };
std::size_t metric_row_width();
metric_table tabulate(const room_result& r);
sim::interval table_interval(const std::vector<metric_table>& ts, std::int32_t user_class,
                             sla_metric m, double confidence);

// Undecided: no data, or users still waiting at the end whose waits could change the verdict.
// Only a pass is a pass; check and plan treat undecided as not holding (exit 1).
enum class sla_verdict { pass, fail, undecided };
const char* to_string(sla_verdict v);

struct sla_outcome {
  sla_target target;
  sim::interval estimate{0.0, 0.0};  // released (counted) users only
  bool pass = false;                 // verdict == pass
  sla_verdict verdict = sla_verdict::fail;
  std::string reason;  // why fail or undecided when censoring or missing data decided it
  // How far the interval could reach with the censored users counted: {lo, hi} (hi +inf
  // when unbounded); the estimate's interval when nobody is censored.
  std::pair<double, double> bounds{0.0, 0.0};
  double censored = 0;  // users still waiting at the end, over all replications
  double released = 0;  // released (counted) users, over all replications
};
std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<room_result>& rs);
std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<metric_table>& ts);

}  // namespace waitroom::models
