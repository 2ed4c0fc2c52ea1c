#pragma once
// Results as GitHub-flavoured Markdown, for a pull request's comment: the terminal tables'
// own rows (report_parts, sla_rows) as Markdown tables, their lines as lines.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/results/result.hpp"
#include "models/run/replication_digest.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "reports/report.hpp"
#include "reports/text_table.hpp"

namespace waitroom::reports {

// A table: its head, the delimiter row (names left, figures right), a row per row; a '|' in a
// cell is escaped.
std::string markdown(const text_table& t);
// Lines and tables in order, a blank line between them.
std::string markdown(const report_parts& parts);

// `run`: a single run, or several replications (from their digest or their summaries).
std::string result_markdown(const models::scenario& s, const models::room_result& r);
std::string replications_markdown(const models::scenario& s, const models::replication_digest& d,
                                  double level);
std::string replications_markdown(const models::scenario& s,
                                  const std::vector<replication_summary>& rs, double level);
// `compare`: the paired differences (compare_json's result).
std::string compare_markdown(const nlohmann::json& comparison);
// `check`: one scenario's targets, a row each.
std::string sla_markdown(const models::scenario& s,
                         const std::vector<models::sla_outcome>& outcomes, double level);

}  // namespace waitroom::reports
