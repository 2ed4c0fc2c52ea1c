#include <algorithm>
#include <cmath>

#include "models/results/censoring.hpp"
#include "reports/report.hpp"
#include "sim/confidence.hpp"

namespace waitroom::reports {

using nlohmann::json;

namespace {
constexpr double percentiles[] = {0.5, 0.9, 0.95, 0.99, 0.999};
constexpr const char* percentile_names[] = {"p50", "p90", "p95", "p99", "p999"};
json number_or_null(double x) {
  return std::isnan(x) ? json(nullptr) : json(x);
}

// A mean with its t interval, from moments of independent values (here: one per user).
json mean_with_interval(const sim::running_moments& m, double level) {
  json j{{"mean", m.count() ? json(m.mean()) : json(nullptr)}, {"n", m.count()}};
  if (m.count() > 1) {
    const auto iv = sim::mean_interval(m, level);
    j["ci95"] = {iv.lo(), iv.hi()};
  }
  return j;
}

// A distribution in seconds by 21 quantiles (enough for a CDF chart; the buckets of a log
// histogram per estimator and class would be ~1,500 each). Null without samples.
json quantiles_json(const sim::log_histogram& h_ns, std::uint64_t n) {
  if (n == 0) return nullptr;
  json q = json::array(), v = json::array();
  for (int i = 0; i <= 20; ++i) {
    const double p = i == 0 ? 0.01 : i == 20 ? 0.99 : static_cast<double>(i) / 20;
    q.push_back(p);
    v.push_back(h_ns.quantile(p) * 1e-9);
  }
  return {{"q", q}, {"value", v}};
}

}  // namespace

json polling_json(const models::polling_result& p, const std::vector<std::string>& classes,
                  double follow_share) {
  const auto& s = p.per_second;
  const std::size_t n = p.seconds_used();  // trailing seconds with nothing in them left out
  auto at = [n](const std::vector<std::uint64_t>& v, std::size_t i) {
    return i < v.size() && i < n ? v[i] : std::uint64_t{0};
  };
  const auto cached = p.commands(true), uncached = p.commands(false);
  std::vector<std::uint64_t> total(n, 0), total_uncached(n, 0), polls(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    polls[i] = at(s.waiting_polls, i) + at(s.post_release_polls, i) + at(s.discoveries, i);
  auto totals = [](const auto& table, std::vector<std::uint64_t>& sum) {
    json j = json::object();
    std::uint64_t all = 0;
    for (const auto& [k, v] : table) {
      std::uint64_t t = 0;
      for (std::size_t i = 0; i < v.size(); ++i) {
        t += v[i];
        sum[i] += v[i];
      }
      j[k] = t;
      all += t;
    }
    j["total"] = all;
    return j;
  };
  json with = totals(cached, total), without = totals(uncached, total_uncached);
  auto sum = [](const std::vector<std::uint64_t>& v) {
    std::uint64_t t = 0;
    for (auto x : v) t += x;
    return t;
  };
  const auto all_with = with["total"].get<std::uint64_t>();
  const auto all_without = without["total"].get<std::uint64_t>();
  json series{{"t_s", json::array()}};
  for (std::size_t i = 0; i < n; ++i) series["t_s"].push_back(static_cast<double>(i));
  for (const auto& [k, v] : cached) series[k] = v;
  series["total"] = total;
  series["total_without_cache"] = total_uncached;
  series["polls"] = polls;
  const std::uint64_t waiting = sum(s.waiting_polls), lookups = sum(s.lookups);
  json j{
      {"commands", with},
      {"commands_without_cache", without},
      {"cache_reduction",
       all_without ? 1.0 - static_cast<double>(all_with) / static_cast<double>(all_without) : 0.0},
      {"polls",
       {{"total", sum(polls)},
        {"while_waiting", waiting},
        {"lookups_while_waiting", lookups},
        {"from_cache_while_waiting", waiting - lookups},
        {"from_cache_after_release", sum(s.post_release_polls)},
        {"release_lookups", sum(s.discoveries)}}},
      {"peak_per_second",
       {{"total", total.empty() ? 0 : *std::max_element(total.begin(), total.end())},
        {"total_without_cache", total_uncached.empty() ? 0
                                                       : *std::max_element(total_uncached.begin(),
                                                                           total_uncached.end())}}},
      {"release_to_lookup_s",
       {{"mean", p.discovery_delay_s.mean()}, {"max", p.discovery_delay_s.max()}}},
      {"per_second", series}};
  json f{{"share", follow_share}, {"users", p.followed_users}, {"by_class", json::array()}};
  for (std::size_t c = 0; c < p.by_class.size(); ++c) {
    const auto& r = p.by_class[c];
    auto users_share = [&](std::uint64_t k) {
      return r.users ? static_cast<double>(k) / static_cast<double>(r.users) : 0.0;
    };
    json cj{{"class", classes[c]},
            {"users", r.users},
            {"polls", r.polls},
            {"moved_backwards",
             {{"raw",
               {{"per_user", mean_with_interval(r.backwards_raw, 0.95)},
                {"share_of_users", users_share(r.users_backwards_raw)}}},
              {"smoothed",
               {{"per_user", mean_with_interval(r.backwards_smoothed, 0.95)},
                {"share_of_users", users_share(r.users_backwards_smoothed)}}}}}};
    json eta = json::object();
    for (std::size_t k = 0; k < r.eta.size(); ++k) {
      const auto& a = r.eta[k];
      eta[models::eta_estimator_names()[k]] = {
          {"predictions", a.predictions},
          {"unavailable", a.unavailable},
          {"mae_s", a.predictions ? json(a.abs_error_s.mean()) : json(nullptr)},
          {"p90_abs_error_s",
           a.predictions ? json(a.abs_error_ns.quantile(0.9) * 1e-9) : json(nullptr)},
          {"bias_s", a.predictions ? json(a.error_s.mean()) : json(nullptr)},
          {"user_mae_s", mean_with_interval(a.user_mae_s, 0.95)},
          {"abs_error_quantiles_s", quantiles_json(a.abs_error_ns, a.predictions)}};
    }
    cj["eta"] = eta;
    json trails = json::array();
    for (const auto& t : r.trails) {
      json ts = json::array(), raw = json::array(), smoothed = json::array();
      for (const auto& pt : t.points) {
        ts.push_back(pt.t_s);
        raw.push_back(pt.raw);
        smoothed.push_back(pt.smoothed);
      }
      trails.push_back({{"user", t.user}, {"t_s", ts}, {"raw", raw}, {"smoothed", smoothed}});
    }
    cj["shown_rank_trails"] = trails;
    f["by_class"].push_back(cj);
  }
  j["followed"] = f;
  return j;
}

json wait_summary(const models::wait_stats& w) {
  json s;
  s["arrived"] = w.arrived;
  s["refused"] = w.refused;
  s["abandoned"] = w.abandoned;
  s["paid_later"] = w.paid_later;
  // Nobody counted gave up: no wait to report (null), not a 0 that reads as "left at once".
  const bool anyone_gave_up = w.abandon_s.count() > 0;
  s["abandon_wait_s"] = {{"mean", anyone_gave_up ? json(w.abandon_s.mean()) : json(nullptr)},
                         {"max", anyone_gave_up ? json(w.abandon_s.max()) : json(nullptr)}};
  s["released"] = w.released;
  s["waiting_at_end"] = w.waiting_at_end;
  json wait;
  // No released user: no wait to report (null), never a 0 that reads as "nobody waited".
  const bool any = w.wait_s.count() > 0;
  auto value = [&](double v) { return any ? json(v) : json(nullptr); };
  wait["count"] = w.wait_s.count();
  wait["mean"] = value(w.wait_s.mean());
  wait["stddev"] = value(w.wait_s.stddev());
  wait["min"] = value(w.wait_s.min());
  for (std::size_t i = 0; i < std::size(percentiles); ++i)
    wait[percentile_names[i]] = value(w.wait_ns.quantile(percentiles[i]) * 1e-9);
  wait["max"] = value(w.wait_s.max());
  s["wait_s"] = wait;
  // The warm-up rule for every count (wait_s.count and abandon_wait_s hold counted users).
  s["counted"] = {{"users", w.counted()},
                  {"refused", w.refused_counted},
                  {"released", w.wait_s.count()},
                  {"abandoned", w.abandon_s.count()},
                  {"waiting_at_end", w.censored_s.count()}};
  // Users still waiting at the end: wait_s leaves them out. Their time so far is a lower
  // bound of their wait; the bounds count them at it (lower) and at +infinity (upper: null
  // when they could still move the figure anywhere above, i.e. not decidable).
  const bool censored = w.censored_s.count() > 0;
  s["censored"] = {{"count", w.censored_s.count()},
                   {"waited_s",
                    {{"mean", censored ? json(w.censored_s.mean()) : json(nullptr)},
                     {"max", censored ? json(w.censored_s.max()) : json(nullptr)}}}};
  json lower, upper;
  auto put = [&](const char* name, const models::stat_bounds& b) {
    lower[name] = std::isnan(b.lower) ? json(nullptr) : json(b.lower);
    upper[name] = b.upper ? json(*b.upper) : json(nullptr);
  };
  put("mean", models::mean_bounds(w));
  for (std::size_t i = 0; i < std::size(percentiles); ++i)
    put(percentile_names[i], models::quantile_bounds(w, percentiles[i]));
  put("max", models::max_bounds(w));
  s["wait_bounds_s"] = {{"count", models::bound_count(w)}, {"lower", lower}, {"upper", upper}};
  json buckets = json::array();
  for (const auto& b : w.wait_ns.nonzero_buckets()) buckets.push_back({b.lower, b.upper, b.count});
  s["wait_histogram"] = {{"unit", "ns"},
                         {"bucket", "[lower, upper) count"},
                         {"max_relative_bucket_width", sim::log_histogram::max_relative_width},
                         {"buckets", buckets}};
  // How long those who gave up had waited (counted users, as abandon_wait_s); null: nobody.
  if (w.abandon_ns) {
    json gave_up = json::array();
    for (const auto& b : w.abandon_ns->nonzero_buckets())
      gave_up.push_back({b.lower, b.upper, b.count});
    s["abandon_histogram"] = {{"unit", "ns"},
                              {"bucket", "[lower, upper) count"},
                              {"max_relative_bucket_width", sim::log_histogram::max_relative_width},
                              {"buckets", gave_up}};
  } else {
    s["abandon_histogram"] = nullptr;
  }
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
              {"peak_memory_bytes", r.peak_memory_bytes},
              {"redis_memory_mb", r.redis_memory_bytes / 1e6}};
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
    json& bj = j["backend"];
    bj["utilisation"] = b.capacity_worker_s > 0 ? b.busy_worker_s / b.capacity_worker_s : 0.0;
    bj["no_shows"] = b.no_shows;
    bj["late"] = b.late;
    bj["reclaimed"] = b.reclaimed;
    bj["release_to_arrival_s"] = {{"mean", b.arrival_delay_s.mean()},
                                  {"max", b.arrival_delay_s.max()}};
    json w{{"window_s", s.backend->window_s}, {"t_s", json::array()},
           {"completed", json::array()},      {"timeouts", json::array()},
           {"p50_ms", json::array()},         {"p95_ms", json::array()},
           {"utilisation", json::array()}};
    for (const auto& x : b.windows) {
      w["t_s"].push_back(x.t_s);
      w["completed"].push_back(x.completed);
      w["timeouts"].push_back(x.timeouts);
      w["p50_ms"].push_back(number_or_null(x.p50_ms));
      w["p95_ms"].push_back(number_or_null(x.p95_ms));
      w["utilisation"].push_back(number_or_null(x.utilisation));
    }
    bj["windows"] = w;
  }
  if (r.polling) j["polling"] = polling_json(*r.polling, r.class_names, s.polling->follow_share);
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
    json t = json::array(), avail = json::array(), ord = json::array(), ref = json::array();
    for (const auto& p : a.over_time) {
      t.push_back(p.t_s);
      avail.push_back(p.available);
      ord.push_back(p.orders);
      ref.push_back(p.refused);
    }
    j["admission"]["over_time"] = {
        {"t_s", t}, {"available", avail}, {"orders", ord}, {"refused", ref}};
  }
  double T = r.end_time_s;
  j["throughput_per_s"] = T > 0 ? static_cast<double>(r.overall.released) / T : 0.0;
  // Over the counted part of the run (after the warm-up, the same rule as the waits): users
  // who entered the queue then (refused users never did); W counts the time of those who
  // gave up too, so that L = lambda W holds on the sample path when the run ends drained
  // (without a warm-up exactly; with one, up to the users queued across its end).
  const double window = T - r.counted_from_s;
  double L = window > 0 ? r.queue_length_area_counted / window : 0.0;
  const auto& o = r.overall;
  double lambda = window > 0 ? static_cast<double>(o.counted() - o.refused_counted) / window : 0.0;
  const auto done_n = static_cast<double>(o.wait_s.count());
  const auto gave_up_n = static_cast<double>(o.abandon_s.count());
  double W = done_n + gave_up_n > 0 ? (o.wait_s.mean() * done_n + o.abandon_s.mean() * gave_up_n) /
                                          (done_n + gave_up_n)
                                    : 0.0;
  j["littles_law"] = {{"mean_queue_length", L},
                      {"arrival_rate_per_s", lambda},
                      {"mean_wait_s", W},
                      {"relative_gap", L > 0 ? std::abs(L - lambda * W) / L : 0.0},
                      {"censored_wait_s", r.censored_wait_s},
                      {"from_s", r.counted_from_s},
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
