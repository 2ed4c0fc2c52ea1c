#include "models/fit/fit_check.hpp"

#include <algorithm>
#include <cmath>

#include "models/spec/sla_spec.hpp"
#include "sim/confidence.hpp"
#include "sim/sample_quantile.hpp"

namespace waitroom::models::fit {

namespace {

constexpr sla_metric checked[] = {sla_metric::mean_wait_s, sla_metric::p50_wait_s,
                                  sla_metric::p95_wait_s, sla_metric::abandoned_share};

double realised(const class_calibration& cl, sla_metric m) {
  const auto& w = cl.released_waits_s;
  switch (m) {
    case sla_metric::mean_wait_s: {
      double sum = 0;
      for (double x : w) sum += x;
      return sum / static_cast<double>(w.size());
    }
    case sla_metric::p50_wait_s:
    case sla_metric::p95_wait_s: {
      std::vector<double> copy = w;
      return sim::sample_quantile(copy, *quantile_of(m));
    }
    default:  // abandoned_share
      return static_cast<double>(cl.gave_up) / static_cast<double>(cl.users);
  }
}

}  // namespace

bool fit_check::all_inside() const {
  return std::all_of(rows.begin(), rows.end(), [](const check_row& r) { return r.inside; });
}

fit_check check_fit(const calibration& c, const std::vector<metric_table>& tables,
                    double family_level) {
  fit_check out;
  out.replications = static_cast<std::uint32_t>(tables.size());
  out.family_level = family_level;
  for (const auto& cl : c.classes) out.waiting_at_end += cl.waiting;
  for (std::size_t k = 0; k < c.classes.size(); ++k)
    for (auto m : checked)
      if (m == sla_metric::abandoned_share || !c.classes[k].released_waits_s.empty())
        out.rows.push_back({c.classes[k].name, k, m, realised(c.classes[k], m)});
  out.row_level =
      1 - (1 - family_level) / static_cast<double>(std::max<std::size_t>(1, out.rows.size()));
  // One future run of the model: mean +- t sd sqrt(1 + 1/R), the prediction interval of a
  // normal sample (not the mean's confidence interval, which shrinks with R).
  const double r = static_cast<double>(tables.size());
  const double t = sim::student_t_quantile(1 - (1 - out.row_level) / 2, r - 1);
  for (auto& row : out.rows) {
    sim::running_moments mo;
    for (const auto& tb : tables)  // a table's row 0 is everyone's, then the classes'
      mo.add(tb.at(row.class_index + 1).at(static_cast<std::size_t>(row.metric)));
    row.model = mo.mean();
    const double half = t * mo.stddev() * std::sqrt(1 + 1 / r);
    row.lo = row.model - half;
    row.hi = row.model + half;
    row.inside = row.realised >= row.lo && row.realised <= row.hi;
  }
  return out;
}

nlohmann::json check_json(const fit_check& f) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : f.rows)
    rows.push_back({{"class", r.class_name},
                    {"metric", to_string(r.metric)},
                    {"realised", r.realised},
                    {"model", r.model},
                    {"interval", {r.lo, r.hi}},
                    {"inside", r.inside}});
  return {{"replications", f.replications}, {"family_level", f.family_level},
          {"row_level", f.row_level},       {"waiting_at_end", f.waiting_at_end},
          {"all_inside", f.all_inside()},   {"rows", rows}};
}

}  // namespace waitroom::models::fit
