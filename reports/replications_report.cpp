#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "models/run/replication_digest.hpp"
#include "models/run/summary.hpp"
#include "models/sla/sla.hpp"
#include "reports/interval_text.hpp"
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

json optional_interval_json(const std::optional<sim::interval>& iv) {
  // null when some replication has no released user of the class (no share to average)
  if (!iv) return {{"estimate", nullptr}, {"ci", {nullptr, nullptr}}};
  return interval_json(*iv);
}

// P(wait > 0) and P(wait > t) per replication, with t intervals across replications.
void put_tails(json& j, const models::replication_digest& d, std::int32_t c, double level) {
  j["p_waited"] = optional_interval_json(d.waited(c, level));
  json tails = json::array();
  const auto& points = d.tails(c);
  for (std::size_t k = 0; k < points.size(); ++k) {
    json t = optional_interval_json(d.above(c, k, level));
    t["t_s"] = points[k].t_s;
    t["from"] = points[k].from_sla ? "sla" : "fixed";
    tails.push_back(t);
  }
  j["p_wait_above"] = tails;
}

json class_summary(const models::scenario& s, const models::replication_digest& d, std::int32_t c,
                   double level) {
  json j;
  for (auto m : reported_metrics(s, c))
    j[models::to_string(m)] = interval_json(d.metric(c, m, level));
  j["pooled"] = wait_summary(d.pooled(c));
  put_tails(j, d, c, level);
  return j;
}

models::replication_digest digest_of(const models::scenario& s,
                                     const std::vector<replication_summary>& rs) {
  models::replication_digest d(s);
  for (const auto& r : rs) {
    std::vector<const models::wait_stats*> waits;
    for (const auto& w : r.waits) waits.push_back(&w);
    d.add(r.replication, r.end_time_s, r.events, r.table, waits);
  }
  return d;
}

models::replication_digest digest_of(const models::scenario& s,
                                     const std::vector<models::room_result>& rs) {
  models::replication_digest d(s);
  for (const auto& r : rs) d.add(r);
  return d;
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
  return replications_json(s, digest_of(s, rs), level, tool_version, bands);
}

std::string replications_table(const models::scenario& s,
                               const std::vector<models::room_result>& rs, double level) {
  return replications_table(s, digest_of(s, rs), level);
}

json replications_json(const models::scenario& s, const std::vector<replication_summary>& rs,
                       double level, std::string_view tool_version,
                       const models::series_bands* bands) {
  return replications_json(s, digest_of(s, rs), level, tool_version, bands);
}

std::string replications_table(const models::scenario& s,
                               const std::vector<replication_summary>& rs, double level) {
  return replications_table(s, digest_of(s, rs), level);
}

report_parts replications_parts(const models::scenario& s,
                                const std::vector<replication_summary>& rs, double level) {
  return replications_parts(s, digest_of(s, rs), level);
}

json replications_json(const models::scenario& s, const models::replication_digest& d, double level,
                       std::string_view tool_version, const models::series_bands* bands) {
  json j;
  j["schema_version"] = result_schema_version;
  j["tool"] = {{"name", "waitroom"}, {"version", tool_version}};
  j["seed"] = s.seed;
  j["replications"] = d.count();
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
    json cj = class_summary(s, d, static_cast<std::int32_t>(c), level);
    cj["name"] = s.classes[c].name;
    j["classes"].push_back(cj);
  }
  j["overall"] = class_summary(s, d, -1, level);
  if (bands) j["queue_length_bands"] = series_bands_json(s, *bands, level);
  j["per_replication"] = json::array();
  for (const auto& r : d.rows())
    j["per_replication"].push_back({{"replication", r.replication},
                                    {"mean_wait_s", r.mean_wait_s},
                                    {"released", r.released},
                                    {"end_time_s", r.end_time_s},
                                    {"events", r.events}});
  return j;
}

report_parts replications_parts(const models::scenario& s, const models::replication_digest& d,
                                double level) {
  report_parts parts{{fmt::format("scenario {}  seed {}  {} replications, {:.0f}% intervals\n\n",
                                  s.name, s.seed, d.count(), level * 100),
                      {}}};
  constexpr models::sla_metric shown[] = {models::sla_metric::mean_wait_s,
                                          models::sla_metric::p95_wait_s,
                                          models::sla_metric::p99_wait_s};
  std::vector<std::int32_t> rows;
  for (std::size_t c = 0; c < s.classes.size(); ++c) rows.push_back(static_cast<std::int32_t>(c));
  if (s.classes.size() > 1) rows.push_back(-1);
  auto name_of = [&](std::int32_t c) {
    return c < 0 ? std::string("all") : s.classes[static_cast<std::size_t>(c)].name;
  };
  // One unit for the table, from its largest figure (interval ends included).
  double top = 0;
  for (auto c : rows)
    for (auto m : shown) {
      const auto iv = d.metric(c, m, level);
      if (std::isfinite(iv.mean)) top = std::max(top, std::fabs(iv.mean));
      if (std::isfinite(iv.hi())) top = std::max(top, std::fabs(iv.hi()));
    }
  const time_unit unit = time_unit_for(top);
  text_table waits{{{"class", 12, true},
                    {fmt::format("mean wait ({})", unit.name), 22},
                    {fmt::format("p95 wait ({})", unit.name), 22},
                    {fmt::format("p99 wait ({})", unit.name), 22}},
                   {},
                   {}};
  auto cell = [&](std::int32_t c, models::sla_metric m) {
    auto iv = d.metric(c, m, level);
    if (std::isnan(iv.mean)) return std::string("no data");  // no released user somewhere
    return interval_text(iv, unit.seconds);
  };
  for (auto ci : rows)
    waits.rows.push_back({name_of(ci), cell(ci, shown[0]), cell(ci, shown[1]), cell(ci, shown[2])});
  parts.push_back({{}, std::move(waits)});
  // Tail probabilities: measured in each replication, then the same t interval.
  std::vector<std::pair<std::string, json>> tails;
  double t_top = 0;
  for (auto ci : rows) {
    json j;
    put_tails(j, d, ci, level);
    for (const auto& t : j["p_wait_above"]) t_top = std::max(t_top, t["t_s"].get<double>());
    tails.emplace_back(name_of(ci), std::move(j));
  }
  const time_unit t_unit = time_unit_for(t_top);
  text_table shares{
      {{"class", 12, true}, {fmt::format("t ({})", t_unit.name), 10}, {"P(wait > t)", 22}},
      {},
      fmt::format("  (share of released users; t from {})",
                  s.sla ? "the SLA's wait limits" : "fixed points")};
  auto share = [&](const json& v) {
    if (v["estimate"].is_null()) return std::string("no data");
    return interval_text(v["estimate"].get<double>(),
                         (v["ci"][1].get<double>() - v["ci"][0].get<double>()) / 2);
  };
  for (const auto& [name, j] : tails) {
    shares.rows.push_back({name, "0", share(j["p_waited"])});
    for (const auto& t : j["p_wait_above"])
      shares.rows.push_back(
          {name, fmt::format("{:.4g}", t["t_s"].get<double>() / t_unit.seconds), share(t)});
  }
  parts.push_back({"\n", std::move(shares)});
  return parts;
}

std::string replications_table(const models::scenario& s, const models::replication_digest& d,
                               double level) {
  return fixed_width(replications_parts(s, d, level));
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

report_parts compare_parts(const nlohmann::json& j) {
  report_parts parts{
      {fmt::format("{} replications on common random numbers, {:.0f}% intervals; "
                   "differences are against '{}'\n\n",
                   j["replications"].get<std::size_t>(), j["confidence"].get<double>() * 100,
                   j["variants"][0]["name"].get<std::string>()),
       {}}};
  // A class with no released user in some replication has no wait: null, shown as such.
  auto known = [](const json& m) {
    return !(m["estimate"].is_null() || m["ci"][0].is_null() || m["ci"][1].is_null());
  };
  // One unit for every time in a table, from its largest figure.
  auto unit_of = [&](std::initializer_list<const char*> metrics, bool classes) {
    double top = 0;
    for (const auto& v : j["variants"])
      for (const auto& c : v["classes"]) {
        for (const char* name : metrics) {
          if (!c.contains(name)) continue;
          for (const json* m :
               {&c[name], c[name].contains("difference") ? &c[name]["difference"] : &c[name]}) {
            if (!known(*m)) continue;
            for (const auto& x : {(*m)["estimate"], (*m)["ci"][0], (*m)["ci"][1]})
              top = std::max(top, std::fabs(x.get<double>()));
          }
        }
        if (!classes) break;
      }
    return time_unit_for(top);
  };
  auto cell = [&](const json& m, double unit_seconds) {
    if (!known(m)) return std::string("no data");
    return interval_text(m["estimate"].get<double>() / unit_seconds,
                         (m["ci"][1].get<double>() - m["ci"][0].get<double>()) / 2 / unit_seconds);
  };
  // The paired difference of a variant's figure (none for the first, which it is against).
  auto difference = [&](const json& m, double unit_seconds) {
    return m.contains("difference") ? cell(m["difference"], unit_seconds) : std::string();
  };
  const time_unit unit = unit_of({"mean_wait_s", "p95_wait_s"}, true);
  text_table waits{{{"variant", 16, true},
                    {"class", 8, true},
                    {fmt::format("mean wait ({})", unit.name), 20},
                    {fmt::format("difference ({})", unit.name), 22},
                    {fmt::format("p95 wait ({})", unit.name), 20},
                    {fmt::format("difference ({})", unit.name), 22}},
                   {},
                   {}};
  for (const auto& v : j["variants"])
    for (const auto& c : v["classes"]) {
      const auto& mean = c["mean_wait_s"];
      const auto& p95 = c["p95_wait_s"];
      waits.rows.push_back({v["name"].get<std::string>(), c["class"].get<std::string>(),
                            cell(mean, unit.seconds), difference(mean, unit.seconds),
                            cell(p95, unit.seconds), difference(p95, unit.seconds)});
    }
  parts.push_back({{}, std::move(waits)});
  // Whole-room figures (Redis, backend) where the scenario measures them, each in its unit.
  const auto& all = j["variants"][0]["classes"][0];
  for (const auto metric :
       {models::sla_metric::redis_peak_per_s, models::sla_metric::redis_memory_mb,
        models::sla_metric::backend_p95_rt_s, models::sla_metric::backend_error_rate}) {
    const char* name = models::to_string(metric);
    if (!all.contains(name)) continue;
    double unit_seconds = 1;
    std::string unit_name(plain_unit(metric));
    if (is_time_metric(metric)) {
      const time_unit u = unit_of({name}, false);
      unit_seconds = u.seconds;
      unit_name = u.name;
    }
    const std::string suffix = unit_name.empty() ? "" : " (" + unit_name + ")";
    text_table room{{{"variant", 16, true}, {"value" + suffix, 20}, {"difference" + suffix, 22}},
                    {},
                    fmt::format("  ({}, everyone)", name)};
    for (const auto& v : j["variants"]) {
      const auto& m = v["classes"][0][name];
      if (m["estimate"].is_null()) continue;
      room.rows.push_back(
          {v["name"].get<std::string>(), cell(m, unit_seconds), difference(m, unit_seconds)});
    }
    parts.push_back({"\n", std::move(room)});
  }
  return parts;
}

std::string compare_table(const nlohmann::json& j) {
  return fixed_width(compare_parts(j));
}

namespace {

// The class a target is about ("all" for everyone).
std::string class_of(const models::scenario& s, const models::sla_target& t) {
  return t.user_class < 0 ? "all" : s.classes[static_cast<std::size_t>(t.user_class)].name;
}

// A limit or estimate in a table's unit: four significant figures, no trailing zeros.
std::string limit_number(double v) {
  std::string t = fixed_text(v, significant_decimals(v));
  if (t.find('.') != std::string::npos) {
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
  }
  return t;
}

// The unit a target's figures are shown in: the table's time unit for times, else the
// metric's own ("" for shares).
struct shown_unit {
  std::string name;
  double scale;
};

shown_unit unit_of(models::sla_metric m, const time_unit& times) {
  if (is_time_metric(m)) return {std::string(times.name), times.seconds};
  return {std::string(plain_unit(m)), 1.0};
}

std::string with_unit(const std::string& number, const shown_unit& u) {
  return u.name.empty() ? number : number + " " + u.name;
}

std::string target_text(const models::scenario& s, const models::sla_target& t,
                        const shown_unit& u) {
  std::string limit;
  if (t.max) limit += "<= " + with_unit(limit_number(*t.max / u.scale), u);
  if (t.min)
    limit += (limit.empty() ? ">= " : ", >= ") + with_unit(limit_number(*t.min / u.scale), u);
  return fmt::format("{} {} {}", class_of(s, t), models::to_string(t.metric), limit);
}

std::string xml_escape(const std::string& in) {
  return markup_escape(in);
}

// The unit for the times of a table of targets: from the largest estimate or interval end.
time_unit targets_time_unit(const std::vector<models::sla_outcome>& outcomes) {
  double top = 0;
  for (const auto& o : outcomes) {
    if (!is_time_metric(o.target.metric)) continue;
    for (double v : {o.estimate.mean, o.estimate.lo(), o.estimate.hi()})
      if (std::isfinite(v)) top = std::max(top, std::fabs(v));
  }
  return time_unit_for(top);
}

}  // namespace

std::string sla_target_text(const models::scenario& s, const models::sla_target& t,
                            const time_unit& times) {
  return target_text(s, t, unit_of(t.metric, times));
}

std::string sla_estimate_text(const models::sla_outcome& o, const time_unit& times) {
  const auto u = unit_of(o.target.metric, times);
  return interval_text(o.estimate, u.scale);
}

time_unit sla_time_unit(const std::vector<models::sla_outcome>& outcomes) {
  return targets_time_unit(outcomes);
}

sla_rows sla_table_rows(const models::scenario& s, const std::vector<models::sla_outcome>& outcomes,
                        double level) {
  const time_unit times = targets_time_unit(outcomes);
  sla_rows out{fmt::format("{}: {:.0f}% confidence, times in {}", s.name, level * 100, times.name),
               {}};
  for (const auto& o : outcomes) {
    const auto u = unit_of(o.target.metric, times);
    out.rows.push_back({o.verdict == models::sla_verdict::pass   ? "ok"
                        : o.verdict == models::sla_verdict::fail ? "FAIL"
                                                                 : "UNDECIDED",
                        target_text(s, o.target, u),
                        std::isnan(o.estimate.mean)
                            ? std::string()
                            : with_unit(interval_text(o.estimate, u.scale), u),
                        o.reason});
  }
  return out;
}

std::string sla_table(const models::scenario& s, const std::vector<models::sla_outcome>& outcomes,
                      double level) {
  const sla_rows t = sla_table_rows(s, outcomes, level);
  std::string out = t.title + "\n";
  // The verdict column is as wide as its widest word, so the targets line up.
  std::size_t width = 4;
  for (const auto& r : t.rows) width = std::max(width, r.verdict.size());
  for (const auto& r : t.rows) {
    if (r.measured.empty())
      out += fmt::format("  {:<{}} {:<40} no data\n", r.verdict, width, r.target);
    else
      out += fmt::format("  {:<{}} {:<40} measured {}\n", r.verdict, width, r.target, r.measured);
    if (!r.reason.empty()) out += fmt::format("{:{}}{}\n", "", width + 3, r.reason);
  }
  return out;
}

// JUnit: a test case per target named by what it measures (class and metric), so tightening
// a limit keeps the test's history in CI; the limit, estimate and interval are properties.
// Its time is 0: the targets share their scenario's simulation, and the file must be the same
// bytes from `merge` of shards as from one process.
std::string junit_xml(
    const std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>>& runs) {
  std::size_t tests = 0, failures = 0;
  for (const auto& [s, os] : runs)
    for (const auto& o : os) {
      ++tests;
      failures += !o.pass;
    }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out +=
      fmt::format("<testsuites name=\"waitroom check\" tests=\"{}\" failures=\"{}\" time=\"0\">\n",
                  tests, failures);
  auto number = [](double v) {
    return std::isfinite(v) ? fmt::format("{}", v) : std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  };
  for (const auto& [s, os] : runs) {
    std::size_t f = 0;
    for (const auto& o : os) f += !o.pass;
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"0\">\n",
                       xml_escape(s->name), os.size(), f);
    // Names unique within the scenario: a second target on the same class and metric is told
    // apart by its kind of limit, then by its rank.
    std::vector<std::string> names;
    for (const auto& o : os)
      names.push_back(class_of(*s, o.target) + " " + models::to_string(o.target.metric));
    auto count = [&](const std::vector<std::string>& v, const std::string& n) {
      return std::count(v.begin(), v.end(), n);
    };
    std::vector<std::string> unique = names;
    for (std::size_t i = 0; i < os.size(); ++i)
      if (count(names, names[i]) > 1)
        unique[i] += os[i].target.max && os[i].target.min ? " (max, min)"
                     : os[i].target.max                   ? " (max)"
                                                          : " (min)";
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < os.size(); ++i) {
      const std::string base = unique[i];
      seen.push_back(base);
      if (count(unique, base) > 1) unique[i] += fmt::format(" #{}", count(seen, base));
    }
    const double confidence = s->sla ? s->sla->confidence : 0.95;
    for (std::size_t i = 0; i < os.size(); ++i) {
      const auto& o = os[i];
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n",
                         xml_escape(s->name), xml_escape(unique[i]));
      out += "      <properties>\n";
      auto property = [&](const char* key, const std::string& value) {
        out +=
            fmt::format("        <property name=\"{}\" value=\"{}\"/>\n", key, xml_escape(value));
      };
      if (o.target.max) property("max", number(*o.target.max));
      if (o.target.min) property("min", number(*o.target.min));
      const auto u = unit_of(o.target.metric, time_unit{"s", 1.0});
      if (!u.name.empty()) property("unit", u.name);
      property("estimate", number(o.estimate.mean));
      property("ci_low", number(o.estimate.lo()));
      property("ci_high", number(o.estimate.hi()));
      property("confidence", number(confidence));
      property("verdict", models::to_string(o.verdict));
      out += "      </properties>\n";
      if (!o.pass)
        out += fmt::format("      <failure message=\"{}{}: measured {}{}\"/>\n",
                           o.verdict == models::sla_verdict::undecided ? "undecided: " : "",
                           xml_escape(target_text(*s, o.target, u)),
                           std::isnan(o.estimate.mean)
                               ? "no data"
                               : xml_escape(with_unit(interval_text(o.estimate), u)),
                           o.reason.empty() ? "" : xml_escape("; " + o.reason));
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace waitroom::reports
