#pragma once
// Results as CSV for scripts and spreadsheets (RFC 4180: comma-separated, a header row,
// fields quoted when they hold a comma, quote or line break). Built from the JSON results, so
// every figure is the one the JSON holds.
#include <string>

#include <nlohmann/json.hpp>

namespace waitroom::reports {

// run: one row per class and "all" with every statistic. Replications: one row per class and
// metric with its estimate and interval.
std::string run_csv(const nlohmann::json& result);
// run: the queue-length samples, one row per sample (t_s, length, one column per class,
// released_since_previous).
std::string queue_series_csv(const nlohmann::json& result);
// compare: one row per variant, class and metric: estimate, interval, paired difference.
std::string compare_csv(const nlohmann::json& comparison);
// check: one row per scenario and target: limit, estimate, interval, verdict.
std::string check_csv(const nlohmann::json& check);

}  // namespace waitroom::reports
