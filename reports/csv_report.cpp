#include "csv_report.hpp"

#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace waitroom::reports {

using nlohmann::json;

namespace {

std::string field(const json& v) {
  std::string s;
  if (v.is_null())
    return "";  // a figure the run could not measure: an empty cell, never 0
  else if (v.is_string())
    s = v.get<std::string>();
  else if (v.is_boolean())
    s = v.get<bool>() ? "true" : "false";
  else
    s = v.dump();
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

void row(std::string& out, const std::vector<json>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += field(cells[i]);
  }
  out += '\n';
}

const json& at(const json& j, const char* key) {
  static const json null_value;
  return j.is_object() && j.contains(key) ? j[key] : null_value;
}

// One end of an interval {"ci": [lo, hi]}, or null where there is none.
const json& ci_end(const json& v, std::size_t i) {
  static const json null_value;
  const json& c = at(v, "ci");
  return c.is_array() && c.size() > i ? c[i] : null_value;
}

}  // namespace

std::string run_csv(const json& r) {
  std::string out;
  std::vector<std::pair<std::string, const json*>> rows;
  for (const auto& c : r["classes"]) rows.emplace_back(c["name"].get<std::string>(), &c);
  rows.emplace_back("all", &r["overall"]);
  if (r.contains("per_replication")) {
    // Replications: every statistic is an estimate with an interval.
    row(out, {"class", "metric", "estimate", "ci_low", "ci_high", "replications", "confidence"});
    for (const auto& [name, c] : rows)
      for (const auto& [metric, v] : c->items()) {
        if (!v.is_object() || !v.contains("estimate")) continue;
        row(out, {name, metric, v["estimate"], ci_end(v, 0), ci_end(v, 1), r["replications"],
                  r["confidence"]});
      }
    // P(wait > t) at each of the class's points: one row each, the point in the metric name.
    for (const auto& [name, c] : rows)
      for (const auto& v : at(*c, "p_wait_above"))
        row(out, {name, fmt::format("p_wait_above_{:g}_s", v["t_s"].get<double>()), v["estimate"],
                  ci_end(v, 0), ci_end(v, 1), r["replications"], r["confidence"]});
    return out;
  }
  static constexpr std::string_view counts[] = {"arrived",   "refused",    "released",
                                                "abandoned", "paid_later", "waiting_at_end"};
  static constexpr std::string_view waits[] = {"count", "mean", "stddev", "min",  "p50",
                                               "p90",   "p95",  "p99",    "p999", "max"};
  std::vector<json> head{"class"};
  for (auto k : counts) head.emplace_back(std::string(k));
  for (auto k : waits)
    head.emplace_back(k == "count" ? std::string("wait_count") : "wait_" + std::string(k) + "_s");
  head.emplace_back("abandon_wait_mean_s");
  head.emplace_back("abandon_wait_max_s");
  // Users still waiting at the end, and the wait bounds that count them (an empty upper
  // cell: they could move it anywhere above, not decidable).
  static constexpr std::string_view bounds[] = {"mean", "p50", "p90", "p95", "p99", "p999", "max"};
  head.emplace_back("censored");
  for (auto k : bounds) head.emplace_back("wait_lower_" + std::string(k) + "_s");
  for (auto k : bounds) head.emplace_back("wait_upper_" + std::string(k) + "_s");
  row(out, head);
  for (const auto& [name, c] : rows) {
    std::vector<json> cells{name};
    for (auto k : counts) cells.push_back(at(*c, std::string(k).c_str()));
    for (auto k : waits) cells.push_back(at(at(*c, "wait_s"), std::string(k).c_str()));
    cells.push_back(at(at(*c, "abandon_wait_s"), "mean"));
    cells.push_back(at(at(*c, "abandon_wait_s"), "max"));
    cells.push_back(at(at(*c, "censored"), "count"));
    for (const char* side : {"lower", "upper"})
      for (auto k : bounds)
        cells.push_back(at(at(at(*c, "wait_bounds_s"), side), std::string(k).c_str()));
    row(out, cells);
  }
  return out;
}

std::string queue_series_csv(const json& r) {
  std::string out;
  const json& q = r["queue_length"];
  std::vector<std::string> names;
  for (const auto& c : r["classes"]) names.push_back(c["name"].get<std::string>());
  std::vector<json> head{"t_s", "length"};
  for (const auto& n : names) head.emplace_back("waiting_" + n);
  head.emplace_back("released_since_previous");
  row(out, head);
  for (std::size_t i = 0; i < q["t_s"].size(); ++i) {
    std::vector<json> cells{q["t_s"][i], q["length"][i]};
    for (const auto& n : names) cells.push_back(q["by_class"][n][i]);
    cells.push_back(q["released_since_previous"][i]);
    row(out, cells);
  }
  return out;
}

std::string compare_csv(const json& j) {
  std::string out;
  row(out, {"variant", "class", "metric", "estimate", "ci_low", "ci_high", "difference",
            "difference_ci_low", "difference_ci_high"});
  for (const auto& v : j["variants"])
    for (const auto& c : v["classes"])
      for (const auto& [metric, m] : c.items()) {
        if (!m.is_object() || !m.contains("estimate")) continue;
        const json& d = at(m, "difference");
        row(out, {v["name"], c["class"], metric, m["estimate"], ci_end(m, 0), ci_end(m, 1),
                  at(d, "estimate"), ci_end(d, 0), ci_end(d, 1)});
      }
  return out;
}

std::string check_csv(const json& j) {
  std::string out;
  row(out, {"scenario", "class", "metric", "limit_kind", "limit", "estimate", "ci_low", "ci_high",
            "confidence", "replications", "pass"});
  for (const auto& s : j["scenarios"])
    for (const auto& t : s["targets"]) {
      const bool max = t.contains("max");
      row(out, {s["name"], t["class"], t["metric"], max ? "max" : "min", max ? t["max"] : t["min"],
                t["estimate"], ci_end(t, 0), ci_end(t, 1), s["confidence"], s["replications"],
                t["pass"]});
    }
  return out;
}

}  // namespace waitroom::reports
