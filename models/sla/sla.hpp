#pragma once
// Service-level targets (the scenario's "sla" block) and their evaluation over independent
// replications. A target passes when its whole confidence interval is on the right side of
// the limit: decisions rest on the confidence bound, never on the point estimate.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/room/result.hpp"
#include "models/sla/sla_spec.hpp"
#include "sim/confidence.hpp"

namespace waitroom::models {

// One metric of one replication's result (class -1: overall).
double metric_value(const room_result& r, std::int32_t user_class, sla_metric m);
// The metric over replications: t interval at `confidence`.
sim::interval metric_interval(const std::vector<room_result>& rs, std::int32_t user_class,
                              sla_metric m, double confidence);

// Every metric of one replication, per class (index 0: all users, then the classes): what
// intervals and SLA decisions need, small enough to write to a shard file and merge.
using metric_row = std::vector<double>;  // indexed by sla_metric
using metric_table = std::vector<metric_row>;
metric_table tabulate(const room_result& r);
sim::interval table_interval(const std::vector<metric_table>& ts, std::int32_t user_class,
                             sla_metric m, double confidence);

struct sla_outcome {
  sla_target target;
  sim::interval estimate;
  bool pass;
};
std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<room_result>& rs);
std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<metric_table>& ts);

}  // namespace waitroom::models
