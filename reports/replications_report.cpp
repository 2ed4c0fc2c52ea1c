#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "models/room/summary.hpp"
#include "models/sla/sla.hpp"
#include "reports/markup_escape.hpp"
#include "reports/report.hpp"

namespace waitroom::reports {

using nlohmann::json;

namespace {

constexpr models::sla_metric summary_metrics[] = {
    models::sla_metric::mean_wait_s,   models::sla_metric::p50_wait_s,
    models::sla_metric::p90_wait_s,    models::sla_metric::p95_wait_s,
    models::sla_metric::p99_wait_s,    models::sla_metric::max_wait_s,
    models::sla_metric::refused_share, models::sla_metric::waiting_at_end_share};

json interval_json(const sim::interval& iv) {
  return {{"estimate", iv.mean}, {"ci", {iv.lo(), iv.hi()}}};
}

// Metrics beyond the waits, where the scenario can measure them; the whole-room ones
// (Redis, backend) only for everyone.
constexpr models::sla_metric extra_metrics[] = {
    models::sla_metric::abandoned_share,       models::sla_metric::eta_mae_s,
    models::sla_metric::rank_moved_back_share, models::sla_metric::redis_peak_per_s,
    models::sla_metric::backend_p95_rt_s,      models::sla_metric::backend_error_rate,
    models::sla_metric::redis_memory_mb};

bool whole_room(models::sla_metric m) {
  return m == models::sla_metric::redis_peak_per_s || m == models::sla_metric::redis_memory_mb ||
         models::needs_backend(m);
}

// The metrics reported for a class (c >= 0) or everyone (c < 0) of a scenario.
std::vector<models::sla_metric> reported_metrics(const models::scenario& s, std::int32_t c) {
  std::vector<models::sla_metric> out(std::begin(summary_metrics), std::end(summary_metrics));
  for (auto m : extra_metrics)
    if (!((models::needs_polling(m) && !s.polling) || (models::needs_backend(m) && !s.backend) ||
          (whole_room(m) && c >= 0)))
      out.push_back(m);
  return out;
}

// A t interval over replications of a share each replication measures, or null estimate and
// interval when some replication has no released user of the class (no share to average).
json share_interval(const std::vector<replication_summary>& rs, std::int32_t c, double level,
                    const std::function<std::optional<double>(const models::wait_stats&)>& f) {
  std::vector<double> xs;
  for (const auto& r : rs) {
    auto x = f(r.waits[static_cast<std::size_t>(c + 1)]);
    if (!x) return {{"estimate", nullptr}, {"ci", {nullptr, nullptr}}};
    xs.push_back(*x);
  }
  return interval_json(sim::mean_interval(xs, level));
}

// P(wait > 0) and P(wait > t) per replication, with t intervals across replications.
void put_tails(json& j, const models::scenario& s, const std::vector<replication_summary>& rs,
               std::int32_t c, double level) {
  j["p_waited"] = share_interval(rs, c, level, models::waited_share);
  json tails = json::array();
  for (const auto& p : models::tail_points(s, c)) {
    json t = share_interval(rs, c, level, [&](const models::wait_stats& w) {
      return models::wait_above_share(w, p.t_s);
    });
    t["t_s"] = p.t_s;
    t["from"] = p.from_sla ? "sla" : "fixed";
    tails.push_back(t);
  }
  j["p_wait_above"] = tails;
}

std::vector<models::metric_table> tables_of(const std::vector<replication_summary>& rs) {
  std::vector<models::metric_table> ts;
  for (const auto& r : rs) ts.push_back(r.table);
  return ts;
}

json class_summary(const models::scenario& s, const std::vector<replication_summary>& rs,
                   const std::vector<models::metric_table>& ts, std::int32_t c, double level) {
  json j;
  for (auto m : reported_metrics(s, c))
    j[models::to_string(m)] = interval_json(models::table_interval(ts, c, m, level));
  models::wait_stats pooled;
  for (const auto& r : rs) pooled.merge(r.waits[static_cast<std::size_t>(c + 1)]);
  j["pooled"] = wait_summary(pooled);
  put_tails(j, s, rs, c, level);
  return j;
}

std::vector<replication_summary> summarize_all(const std::vector<models::room_result>& rs) {
  std::vector<replication_summary> out;
  for (const auto& r : rs) out.push_back(summarize(r));
  return out;
}

}  // namespace

replication_summary summarize(const models::room_result& r) {
  replication_summary out{r.replication, r.end_time_s, r.events, models::tabulate(r), {}};
  out.waits.push_back(r.overall);
  for (const auto& w : r.by_class) out.waits.push_back(w);
  return out;
}

json series_bands_json(const models::scenario& s, const models::series_bands& b, double level) {
  auto column = [&](std::size_t j) {
    json mean = json::array(), lo = json::array(), hi = json::array();
    for (std::size_t k = 0; k < b.samples(); ++k) {
      const auto iv = b.at(k, j, level);
      mean.push_back(iv.mean);
      lo.push_back(iv.lo());
      hi.push_back(iv.hi());
    }
    return json{{"mean", mean}, {"ci_low", lo}, {"ci_high", hi}};
  };
  json by_class = json::object();
  for (std::size_t c = 0; c < s.classes.size(); ++c) by_class[s.classes[c].name] = column(1 + c);
  return {{"method",
           "At every sample time of the grid, the mean over replications and a pointwise "
           "Student-t interval (not a simultaneous band); a replication that ended earlier "
           "counts as nobody waiting and nobody released after its end."},
          {"interval_s", s.run.sample_interval_s},
          {"replications", b.replications()},
          {"t_s", b.t_s()},
          {"waiting", column(0)},
          {"waiting_by_class", by_class},
          {"released_since_previous", column(b.columns() - 1)}};
}

json replications_json(const models::scenario& s, const std::vector<models::room_result>& rs,
                       double level, std::string_view tool_version,
                       const models::series_bands* bands) {
  return replications_json(s, summarize_all(rs), level, tool_version, bands);
}

std::string replications_table(const models::scenario& s,
                               const std::vector<models::room_result>& rs, double level) {
  return replications_table(s, summarize_all(rs), level);
}

json replications_json(const models::scenario& s, const std::vector<replication_summary>& rs,
                       double level, std::string_view tool_version,
                       const models::series_bands* bands) {
  const auto ts = tables_of(rs);
  json j;
  j["schema_version"] = result_schema_version;
  j["tool"] = {{"name", "waitroom"}, {"version", tool_version}};
  j["seed"] = s.seed;
  j["replications"] = rs.size();
  j["confidence"] = level;
  j["method"] =
      "Each statistic is estimated in every independent replication; the estimate is their "
      "mean and ci a Student-t interval over replications (percentiles: nearest-rank "
      "per replication from the histogram, then the t interval). 'pooled' merges all "
      "replications' waits. p_waited (P(wait > 0)) and p_wait_above (P(wait > t)) are shares of "
      "each replication's released users, then the t interval; t are the SLA's limits on "
      "waits, or 10 s, 1 min, 5 min, 15 min and 1 h without any; P(wait > t) counts t's own "
      "histogram bucket (< 0.79% of t wide) as evenly spread.";
  j["scenario"] = models::to_json(s);
  j["classes"] = json::array();
  for (std::size_t c = 0; c < s.classes.size(); ++c) {
    json cj = class_summary(s, rs, ts, static_cast<std::int32_t>(c), level);
    cj["name"] = s.classes[c].name;
    j["classes"].push_back(cj);
  }
  j["overall"] = class_summary(s, rs, ts, -1, level);
  if (bands) j["queue_length_bands"] = series_bands_json(s, *bands, level);
  j["per_replication"] = json::array();
  for (const auto& r : rs)
    j["per_replication"].push_back({{"replication", r.replication},
                                    {"mean_wait_s", r.waits[0].wait_s.mean()},
                                    {"released", r.waits[0].released},
                                    {"end_time_s", r.end_time_s},
                                    {"events", r.events}});
  return j;
}

std::string replications_table(const models::scenario& s,
                               const std::vector<replication_summary>& rs, double level) {
  const auto ts = tables_of(rs);
  std::string out = fmt::format("scenario {}  seed {}  {} replications, {:.0f}% intervals\n\n",
                                s.name, s.seed, rs.size(), level * 100);
  out += fmt::format("{:<12} {:>22} {:>22} {:>22}\n", "class", "mean wait (s)", "p95 wait (s)",
                     "p99 wait (s)");
  auto cell = [&](std::int32_t c, models::sla_metric m) {
    auto iv = models::table_interval(ts, c, m, level);
    if (std::isnan(iv.mean)) return std::string("no data");  // no released user somewhere
    return fmt::format("{:.3f} ± {:.3f}", iv.mean, iv.half_width);
  };
  for (std::size_t c = 0; c <= s.classes.size(); ++c) {
    auto ci = c < s.classes.size() ? static_cast<std::int32_t>(c) : -1;
    if (ci < 0 && s.classes.size() == 1) break;
    out += fmt::format("{:<12} {:>22} {:>22} {:>22}\n", ci < 0 ? "all" : s.classes[c].name,
                       cell(ci, models::sla_metric::mean_wait_s),
                       cell(ci, models::sla_metric::p95_wait_s),
                       cell(ci, models::sla_metric::p99_wait_s));
  }
  // Tail probabilities: measured in each replication, then the same t interval.
  out += fmt::format("\n{:<12} {:>10} {:>22}  (share of released users; t from {})\n", "class", "t",
                     "P(wait > t)", s.sla ? "the SLA's wait limits" : "fixed points");
  auto share = [&](const json& v) {
    if (v["estimate"].is_null()) return std::string("no data");
    return fmt::format("{:.4f} ± {:.4f}", v["estimate"].get<double>(),
                       (v["ci"][1].get<double>() - v["ci"][0].get<double>()) / 2);
  };
  for (std::size_t c = 0; c <= s.classes.size(); ++c) {
    auto ci = c < s.classes.size() ? static_cast<std::int32_t>(c) : -1;
    if (ci < 0 && s.classes.size() == 1) break;
    json j;
    put_tails(j, s, rs, ci, level);
    const std::string name = ci < 0 ? "all" : s.classes[c].name;
    out += fmt::format("{:<12} {:>10} {:>22}\n", name, "0 s", share(j["p_waited"]));
    for (const auto& t : j["p_wait_above"])
      out += fmt::format("{:<12} {:>10} {:>22}\n", name,
                         fmt::format("{:g} s", t["t_s"].get<double>()), share(t));
  }
  return out;
}

nlohmann::json compare_json(const std::vector<std::string>& names,
                            const std::vector<const models::scenario*>& scenarios,
                            const std::vector<std::vector<models::room_result>>& runs,
                            double level) {
  json j;
  j["schema_version"] = result_schema_version;
  j["confidence"] = level;
  j["replications"] = runs.front().size();
  j["method"] =
      "All variants run the same replications on common random numbers; differences are "
      "paired per replication (variant minus the first), with Student-t intervals.";
  const auto& base = *scenarios.front();
  j["variants"] = json::array();
  for (std::size_t v = 0; v < names.size(); ++v) {
    json vj{{"name", names[v]},
            {"scenario", models::to_json(*scenarios[v])},
            {"classes", json::array()}};
    for (std::int32_t c = -1; c < static_cast<std::int32_t>(base.classes.size()); ++c) {
      json cj{
          {"class", c < 0 ? std::string("all") : base.classes[static_cast<std::size_t>(c)].name}};
      for (auto m : reported_metrics(base, c)) {
        json mj = interval_json(models::metric_interval(runs[v], c, m, level));
        if (v > 0) {
          std::vector<double> d;
          for (std::size_t r = 0; r < runs[v].size(); ++r)
            d.push_back(models::metric_value(runs[v][r], c, m) -
                        models::metric_value(runs[0][r], c, m));
          mj["difference"] = interval_json(sim::mean_interval(d, level));
        }
        cj[models::to_string(m)] = mj;
      }
      vj["classes"].push_back(cj);
    }
    j["variants"].push_back(vj);
  }
  return j;
}

std::string compare_table(const nlohmann::json& j) {
  std::string out = fmt::format(
      "{} replications on common random numbers, {:.0f}% intervals; "
      "differences are against '{}'\n\n",
      j["replications"].get<std::size_t>(), j["confidence"].get<double>() * 100,
      j["variants"][0]["name"].get<std::string>());
  out += fmt::format("{:<16} {:<8} {:>20} {:>22} {:>20} {:>22}\n", "variant", "class",
                     "mean wait (s)", "difference", "p95 wait (s)", "difference");
  auto cell = [](const json& m) {
    // A class with no released user in some replication has no wait: null, shown as such.
    if (m["estimate"].is_null() || m["ci"][0].is_null() || m["ci"][1].is_null())
      return std::string("no data");
    return fmt::format("{:.3f} ± {:.3f}", m["estimate"].get<double>(),
                       (m["ci"][1].get<double>() - m["ci"][0].get<double>()) / 2);
  };
  for (const auto& v : j["variants"])
    for (const auto& c : v["classes"]) {
      const auto& mean = c["mean_wait_s"];
      const auto& p95 = c["p95_wait_s"];
      out += fmt::format("{:<16} {:<8} {:>20} {:>22} {:>20} {:>22}\n", v["name"].get<std::string>(),
                         c["class"].get<std::string>(), cell(mean),
                         mean.contains("difference") ? cell(mean["difference"]) : "", cell(p95),
                         p95.contains("difference") ? cell(p95["difference"]) : "");
    }
  // Whole-room figures (Redis, backend) where the scenario measures them.
  const auto& all = j["variants"][0]["classes"][0];
  for (const char* name :
       {"redis_peak_per_s", "redis_memory_mb", "backend_p95_rt_s", "backend_error_rate"}) {
    if (!all.contains(name)) continue;
    out += fmt::format("\n{:<16} {:>20} {:>22}  ({}, everyone)\n", "variant", "value", "difference",
                       name);
    for (const auto& v : j["variants"]) {
      const auto& m = v["classes"][0][name];
      if (m["estimate"].is_null()) continue;
      out += fmt::format("{:<16} {:>20} {:>22}\n", v["name"].get<std::string>(), cell(m),
                         m.contains("difference") ? cell(m["difference"]) : "");
    }
  }
  return out;
}

namespace {
std::string target_text(const models::scenario& s, const models::sla_target& t) {
  std::string who =
      t.user_class < 0 ? "all" : s.classes[static_cast<std::size_t>(t.user_class)].name;
  std::string limit;
  if (t.max) limit += fmt::format("<= {}", *t.max);
  if (t.min) limit += fmt::format("{}>= {}", limit.empty() ? "" : ", ", *t.min);
  return fmt::format("{} {} {}", who, models::to_string(t.metric), limit);
}

std::string xml_escape(const std::string& in) {
  return markup_escape(in);
}
}  // namespace

std::string sla_table(const models::scenario& s, const std::vector<models::sla_outcome>& outcomes,
                      double level) {
  std::string out = fmt::format("{}: {:.0f}% confidence\n", s.name, level * 100);
  auto word_of = [](const models::sla_outcome& o) -> std::string_view {
    return o.verdict == models::sla_verdict::pass   ? "ok"
           : o.verdict == models::sla_verdict::fail ? "FAIL"
                                                    : "UNDECIDED";
  };
  // The verdict column is as wide as its widest word, so the targets line up.
  std::size_t width = 4;
  for (const auto& o : outcomes) width = std::max(width, word_of(o).size());
  for (const auto& o : outcomes) {
    const auto word = word_of(o);
    if (std::isnan(o.estimate.mean))
      out += fmt::format("  {:<{}} {:<40} no data\n", word, width, target_text(s, o.target));
    else
      out +=
          fmt::format("  {:<{}} {:<40} measured {:.4g} [{:.4g}, {:.4g}]\n", word, width,
                      target_text(s, o.target), o.estimate.mean, o.estimate.lo(), o.estimate.hi());
    if (!o.reason.empty()) out += fmt::format("{:{}}{}\n", "", width + 3, o.reason);
  }
  return out;
}

std::string junit_xml(
    const std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>>& runs) {
  std::size_t tests = 0, failures = 0;
  for (const auto& [s, os] : runs)
    for (const auto& o : os) {
      ++tests;
      failures += !o.pass;
    }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"waitroom check\" tests=\"{}\" failures=\"{}\">\n", tests,
                     failures);
  for (const auto& [s, os] : runs) {
    std::size_t f = 0;
    for (const auto& o : os) f += !o.pass;
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
                       xml_escape(s->name), os.size(), f);
    for (const auto& o : os) {
      std::string name = xml_escape(target_text(*s, o.target));
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(s->name), name);
      if (o.pass) {
        out += "/>\n";
      } else {
        out += fmt::format(
            ">\n      <failure message=\"{}measured {:.4g}, interval [{:.4g}, {:.4g}]{}\"/>\n    "
            "</testcase>\n",
            o.verdict == models::sla_verdict::undecided ? "undecided: " : "", o.estimate.mean,
            o.estimate.lo(), o.estimate.hi(), o.reason.empty() ? "" : xml_escape("; " + o.reason));
      }
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace waitroom::reports
