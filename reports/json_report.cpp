#include <cmath>

#include "reports/report.hpp"

namespace waitroom::reports {

using nlohmann::json;

namespace {
constexpr double percentiles[] = {0.5, 0.9, 0.95, 0.99, 0.999};
constexpr const char* percentile_names[] = {"p50", "p90", "p95", "p99", "p999"};
}  // namespace

json wait_summary(const models::wait_stats& w) {
  json s;
  s["arrived"] = w.arrived;
  s["refused"] = w.refused;
  s["abandoned"] = w.abandoned;
  s["paid_later"] = w.paid_later;
  s["abandon_wait_s"] = {{"mean", w.abandon_s.mean()}, {"max", w.abandon_s.max()}};
  s["released"] = w.released;
  s["waiting_at_end"] = w.waiting_at_end;
  json wait;
  wait["count"] = w.wait_s.count();
  wait["mean"] = w.wait_s.mean();
  wait["stddev"] = w.wait_s.stddev();
  wait["min"] = w.wait_s.min();
  for (std::size_t i = 0; i < std::size(percentiles); ++i)
    wait[percentile_names[i]] = w.wait_ns.quantile(percentiles[i]) * 1e-9;
  wait["max"] = w.wait_s.max();
  s["wait_s"] = wait;
  json buckets = json::array();
  for (const auto& b : w.wait_ns.nonzero_buckets()) buckets.push_back({b.lower, b.upper, b.count});
  s["wait_histogram"] = {{"unit", "ns"},
                         {"bucket", "[lower, upper) count"},
                         {"max_relative_bucket_width", sim::log_histogram::max_relative_width},
                         {"buckets", buckets}};
  return s;
}

json result_json(const models::scenario& s, const models::room_result& r,
                 std::string_view tool_version) {
  json j;
  j["schema_version"] = result_schema_version;
  j["tool"] = {{"name", "waitroom"}, {"version", tool_version}};
  j["seed"] = r.seed;
  j["replication"] = r.replication;
  j["scenario"] = models::to_json(s);
  j["run"] = {{"stop_reason", r.stop_reason},
              {"end_time_s", r.end_time_s},
              {"events", r.events},
              {"peak_queue_length", r.peak_queue_length},
              {"peak_memory_bytes", r.peak_memory_bytes}};
  j["classes"] = json::array();
  for (std::size_t c = 0; c < r.by_class.size(); ++c) {
    json cj = wait_summary(r.by_class[c]);
    cj["name"] = r.class_names[c];
    j["classes"].push_back(cj);
  }
  j["overall"] = wait_summary(r.overall);
  j["lists"] = json::array();
  for (std::size_t l = 0; l < r.by_list.size(); ++l)
    j["lists"].push_back({{"name", r.list_names[l]},
                          {"released", r.by_list[l].released},
                          {"aged_in", r.by_list[l].aged_in},
                          {"peak_length", r.by_list[l].peak_length}});
  j["lost_release_units"] = r.lost_release_units;
  j["returning_visits"] = r.returning_visits;
  if (r.backend) {
    const auto& b = *r.backend;
    json rt{{"mean", b.rt_s.mean()},
            {"p50", b.rt_ns.quantile(0.5) * 1e-9},
            {"p95", b.rt_ns.quantile(0.95) * 1e-9},
            {"p99", b.rt_ns.quantile(0.99) * 1e-9},
            {"max", b.rt_s.max()}};
    j["backend"] = {
        {"completed", b.completed},
        {"timeouts", b.timeouts},
        {"error_rate",
         b.completed ? static_cast<double>(b.timeouts) / static_cast<double>(b.completed) : 0.0},
        {"peak_queue", b.peak_queue},
        {"response_time_s", rt},
        {"controller", {{"t_s", b.t_s}, {"rate_per_tick", b.rate_per_tick}, {"rt_ms", b.rt_ms}}}};
  }
  if (s.run.warmup != models::warmup_kind::none) {
    j["warmup"] = {{"dropped", r.warmup_dropped}};
    if (r.mser_truncation) j["warmup"]["mser_truncation_customers"] = *r.mser_truncation;
  }
  if (r.compensation) {
    const auto& c = *r.compensation;
    json cj = wait_summary(c.credited);
    cj.erase("arrived");
    cj.erase("refused");
    cj.erase("waiting_at_end");
    j["compensation"] = {
        {"granted", c.granted}, {"used", c.used},     {"used_in_place", c.used_in_place},
        {"expired", c.expired}, {"unused", c.unused}, {"credited_visits", cj}};
  }
  if (r.admission) {
    const auto& a = *r.admission;
    j["admission"] = {{"stock", a.stock},
                      {"refused", a.refused},
                      {"orders", a.orders},
                      {"order_failures", a.order_failures},
                      {"cancellations", a.cancellations},
                      {"reopenings", a.reopenings},
                      {"max_outstanding_orders", a.max_outstanding_orders},
                      {"available_at_end", a.available_at_end},
                      {"sold_out_at_s", a.sold_out_at_s ? json(*a.sold_out_at_s) : json(nullptr)}};
  }
  double T = r.end_time_s;
  j["throughput_per_s"] = T > 0 ? static_cast<double>(r.overall.released) / T : 0.0;
  double L = r.mean_queue_length();
  double lambda = T > 0 ? static_cast<double>(r.overall.arrived) / T : 0.0;
  double W = r.overall.wait_s.mean();
  j["littles_law"] = {{"mean_queue_length", L},
                      {"arrival_rate_per_s", lambda},
                      {"mean_wait_s", W},
                      {"relative_gap", L > 0 ? std::abs(L - lambda * W) / L : 0.0},
                      {"censored_wait_s", r.censored_wait_s},
                      {"note",
                       "L = lambda W holds exactly when the run ends drained; otherwise "
                       "users still waiting (censored_wait_s) make the gap"}};
  json q;
  q["interval_s"] = s.run.sample_interval_s;
  json t = json::array(), len = json::array(), rel = json::array();
  json by_class = json::object();
  for (const auto& name : r.class_names) by_class[name] = json::array();
  for (const auto& smp : r.samples) {
    t.push_back(smp.t_s);
    len.push_back(smp.length);
    rel.push_back(smp.released_in_interval);
    for (std::size_t c = 0; c < r.class_names.size(); ++c)
      by_class[r.class_names[c]].push_back(smp.by_class[c]);
  }
  q["t_s"] = t;
  q["length"] = len;
  q["by_class"] = by_class;
  q["released_since_previous"] = rel;
  if (!r.samples.empty() && !r.samples.front().expected_rank_by_class.empty()) {
    json er = json::object();
    for (std::size_t c = 0; c < r.class_names.size(); ++c) {
      er[r.class_names[c]] = json::array();
      for (const auto& smp : r.samples)
        er[r.class_names[c]].push_back(smp.expected_rank_by_class[c]);
    }
    q["expected_rank_by_class"] = er;
  }
  j["queue_length"] = q;
  return j;
}

}  // namespace waitroom::reports
