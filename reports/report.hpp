#pragma once
// Results as JSON (machine-readable, byte-identical for the same scenario and seed) and as
// a terminal table (for people).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/results/result.hpp"
#include "models/run/replication_digest.hpp"
#include "models/run/series_bands.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "reports/interval_text.hpp"
#include "reports/text_table.hpp"

namespace waitroom::reports {

inline constexpr int result_schema_version = 1;

nlohmann::json wait_summary(const models::wait_stats& w);
// The "polling" block of a result: Redis commands with and without the cache (totals and per
// second), polls, and the followed users' shown-rank and ETA-accuracy figures.
nlohmann::json polling_json(const models::polling_result& p,
                            const std::vector<std::string>& classes, double follow_share);
nlohmann::json result_json(const models::scenario& s, const models::room_result& r,
                           std::string_view tool_version);
std::string result_table(const models::scenario& s, const models::room_result& r);
// The same as rows and lines, for a layout of its own (result_table's is fixed-width).
report_parts result_parts(const models::scenario& s, const models::room_result& r);

// Several replications: t intervals for every statistic (see the "method" field).
// bands (optional): the replications' queue samples, written as queue_length_bands.
nlohmann::json replications_json(const models::scenario& s,
                                 const std::vector<models::room_result>& rs, double level,
                                 std::string_view tool_version,
                                 const models::series_bands* bands = nullptr);
std::string replications_table(const models::scenario& s,
                               const std::vector<models::room_result>& rs, double level);
// All the replication report reads of one run, small enough for a shard file of
// `run --shard`: the same report from summaries as from the runs, byte for byte.
struct replication_summary {
  std::uint64_t replication = 0;
  double end_time_s = 0;
  std::uint64_t events = 0;
  models::metric_table table;             // tabulate(run)
  std::vector<models::wait_stats> waits;  // [0] everyone, [1 + c] class c
};
replication_summary summarize(const models::room_result& r);
nlohmann::json replications_json(const models::scenario& s,
                                 const std::vector<replication_summary>& rs, double level,
                                 std::string_view tool_version,
                                 const models::series_bands* bands = nullptr);
// The same from replications taken in as they finished (run --replications).
nlohmann::json replications_json(const models::scenario& s, const models::replication_digest& d,
                                 double level, std::string_view tool_version,
                                 const models::series_bands* bands = nullptr);
std::string replications_table(const models::scenario& s, const models::replication_digest& d,
                               double level);
report_parts replications_parts(const models::scenario& s, const models::replication_digest& d,
                                double level);
report_parts replications_parts(const models::scenario& s,
                                const std::vector<replication_summary>& rs, double level);
// Per sample time: the mean number waiting (everyone, each class) and released per interval
// over replications, with pointwise t intervals.
nlohmann::json series_bands_json(const models::scenario& s, const models::series_bands& b,
                                 double level);
std::string replications_table(const models::scenario& s,
                               const std::vector<replication_summary>& rs, double level);
// Variants compared on common random numbers: runs[v][r] is variant v, replication r.
nlohmann::json compare_json(const std::vector<std::string>& names,
                            const std::vector<const models::scenario*>& scenarios,
                            const std::vector<std::vector<models::room_result>>& runs,
                            double level);
std::string compare_table(const nlohmann::json& comparison);
report_parts compare_parts(const nlohmann::json& comparison);
// SLA outcomes: a table for people, JUnit XML for CI systems.
std::string sla_table(const models::scenario& s, const std::vector<models::sla_outcome>& outcomes,
                      double level);
// sla_table's rows: per target its verdict ("ok", "FAIL", "UNDECIDED"), the target ("vip
// mean_wait_s <= 20 s"), the estimate with its interval and unit (empty: no data) and why
// censoring or missing data decided it (empty: nothing to add); the title names the scenario.
struct sla_row {
  std::string verdict, target, measured, reason;
};
struct sla_rows {
  std::string title;
  std::vector<sla_row> rows;
};
sla_rows sla_table_rows(const models::scenario& s, const std::vector<models::sla_outcome>& outcomes,
                        double level);
// One target for a table whose times are in `times`: "vip mean_wait_s <= 20 s", and its estimate
// "1.641 ± 0.097" in the same unit; the unit for a table of outcomes (interval_text.hpp's rule).
std::string sla_target_text(const models::scenario& s, const models::sla_target& t,
                            const time_unit& times);
std::string sla_estimate_text(const models::sla_outcome& o, const time_unit& times);
time_unit sla_time_unit(const std::vector<models::sla_outcome>& outcomes);
// One test case per target, named "class metric" (stable when a limit changes), with the limit,
// estimate and interval as properties.
std::string junit_xml(
    const std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>>& runs);

}  // namespace waitroom::reports
