#include "reports/estimate_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "models/run/summary.hpp"
#include "models/sla/sla.hpp"

namespace waitroom::reports {

// One row a class (or everyone, when the model gives one value for all), and the model's
// probabilities: the closed form beside the simulation's interval.
std::vector<estimate_row> estimate_rows(const models::scenario& s,
                                        const std::vector<models::room_result>& rs,
                                        const models::estimate_or_reason& est) {
  std::vector<estimate_row> rows;
  // Some models give one value for all users (the order within the queue only moves waits
  // between classes); with abandonment it is the time in queue of everyone who left it.
  const bool overall = est.estimate && est.estimate->overall_only;
  if (overall) {
    std::vector<double> xs;
    for (const auto& r : rs) {
      const auto& w = r.overall;
      double n = static_cast<double>(w.wait_s.count() + w.abandon_s.count());
      xs.push_back(n > 0 ? (w.wait_s.mean() * static_cast<double>(w.wait_s.count()) +
                            w.abandon_s.mean() * static_cast<double>(w.abandon_s.count())) /
                               n
                         : 0.0);
    }
    rows.push_back({"everyone", est.estimate->mean_wait_s[0], sim::mean_interval(xs, 0.95)});
  }
  for (std::size_t c = 0; c < s.classes.size(); ++c) {
    std::optional<double> theory;
    if (est.estimate && !overall) theory = est.estimate->mean_wait_s[c];
    rows.push_back({s.classes[c].name, theory,
                    models::metric_interval(rs, static_cast<std::int32_t>(c),
                                            models::sla_metric::mean_wait_s, 0.95)});
  }
  if (est.estimate && est.estimate->p_abandon)
    rows.push_back({"P(abandon)", est.estimate->p_abandon,
                    models::metric_interval(rs, -1, models::sla_metric::abandoned_share, 0.95)});
  if (est.estimate && est.estimate->p_wait) {
    // A wait of 0 ns (bucket 0 of the histogram) is not waiting; everyone who gave up
    // waited (Erlang-A's P(wait) is over all arrivals who left the queue).
    std::vector<double> pw;
    for (const auto& r : rs) {
      const auto left = r.overall.wait_ns.count() + r.overall.abandon_s.count();
      pw.push_back(1.0 - static_cast<double>(r.overall.wait_ns.bucket(0)) /
                             static_cast<double>(std::max<std::uint64_t>(1, left)));
    }
    rows.push_back({"P(wait > 0)", est.estimate->p_wait, sim::mean_interval(pw, 0.95)});
  }
  if (est.estimate && est.estimate->p_wait && est.estimate->wait_decay_per_s)
    // FIFO M/M/c: P(wait > t) at the points `run --replications` reports (SLA limits or fixed).
    for (const auto& p : models::tail_points(s, -1)) {
      std::vector<double> xs;
      for (const auto& r : rs)
        xs.push_back(models::wait_above_share(r.overall, p.t_s).value_or(0.0));
      rows.push_back({fmt::format("P(wait > {:g} s)", p.t_s),
                      *est.estimate->p_wait * std::exp(-*est.estimate->wait_decay_per_s * p.t_s),
                      sim::mean_interval(xs, 0.95)});
    }
  return rows;
}

// Full precision (nlohmann writes the shortest text that reads back the same double).
std::string estimate_json(const models::scenario& s, const models::estimate_or_reason& est,
                          std::uint32_t reps, const std::vector<estimate_row>& rows) {
  nlohmann::json j{{"schema_version", 1},
                   {"scenario", s.name},
                   {"model", est.estimate ? nlohmann::json(est.estimate->model) : nullptr},
                   {"reason", est.estimate ? nlohmann::json(nullptr) : nlohmann::json(est.reason)},
                   {"unstable", est.unstable},
                   {"replications", reps},
                   {"confidence", 0.95},
                   {"rows", nlohmann::json::array()}};
  for (const auto& r : rows) {
    nlohmann::json rj{
        {"name", r.name},
        {"closed_form", r.theory ? nlohmann::json(*r.theory) : nullptr},
        {"simulated",
         {{"estimate", r.simulated.mean}, {"ci", {r.simulated.lo(), r.simulated.hi()}}}}};
    rj["inside"] = r.theory ? nlohmann::json(r.simulated.contains(*r.theory)) : nullptr;
    j["rows"].push_back(rj);
  }
  return j.dump(2) + "\n";
}

std::string estimate_table(const models::scenario& s, const models::estimate_or_reason& est,
                           std::uint32_t reps, const std::vector<estimate_row>& rows) {
  std::string out = fmt::format(
      "{}: {}\n", s.name, est.estimate ? est.estimate->model : "no closed form: " + est.reason);
  out += fmt::format("{:<16} {:>14} {:>26}\n", "class", "closed form",
                     "simulated (95%, " + std::to_string(reps) + " reps)");
  for (const auto& r : rows) {
    std::string verdict;
    if (r.theory) verdict = r.simulated.contains(*r.theory) ? "  inside" : "  OUTSIDE";
    out += fmt::format("{:<16} {:>14} {:>18.4f} ± {:<8.4f}{}\n", r.name,
                       r.theory ? fmt::format("{:.4f}", *r.theory) : "-", r.simulated.mean,
                       r.simulated.half_width, verdict);
  }
  out += "(simulations start empty; a long horizon keeps that bias small)\n";
  return out;
}

}  // namespace waitroom::reports
