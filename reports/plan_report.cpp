#include "reports/plan_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/planning/pareto.hpp"
#include "models/scenario/scenario.hpp"
#include "reports/check_report.hpp"
#include "reports/interval_text.hpp"
#include "reports/report.hpp"

namespace waitroom::reports {

namespace {

using nlohmann::json;

constexpr models::sla_metric reported[] = {models::sla_metric::mean_wait_s,
                                           models::sla_metric::p95_wait_s,
                                           models::sla_metric::refused_share};

std::string class_name(const models::scenario& s, std::int32_t c) {
  return c < 0 ? std::string("all") : s.classes[static_cast<std::size_t>(c)].name;
}

// Where no value of the grid meets every SLA: at its lowest and highest value simulated,
// the targets that fail and how far (the estimate as a multiple of its limit).
std::string binding_note(const plan_view& v,
                         const std::vector<std::vector<models::sla_outcome>>& outcomes,
                         const time_unit& unit) {
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < v.grid_points; ++i)
    if (v.ran[i]) {
      if (ends.size() == 2) ends.pop_back();
      ends.push_back(i);
    }
  std::string out;
  for (std::size_t k = 0; k < ends.size(); ++k) {
    std::string failing;
    for (const auto& o : outcomes[ends[k]]) {
      if (o.pass) continue;
      const double limit = o.target.max ? *o.target.max : o.target.min.value_or(0);
      const std::string head = sla_target_text(v.base, o.target, unit);
      failing +=
          fmt::format("{}{} at {}", failing.empty() ? "" : "; ", head, sla_estimate_text(o, unit));
      if (o.verdict == models::sla_verdict::undecided)
        failing += " (undecided)";
      else if (limit > 0 && std::isfinite(o.estimate.mean))
        failing += fmt::format(" ({:.3g}x its limit)", o.estimate.mean / limit);
    }
    out += fmt::format("{} {} = {}: {}\n", k == 0 ? "lowest" : "highest", v.axes[0].pointer,
                       v.points[ends[k]].values[0], failing.empty() ? "every SLA holds" : failing);
  }
  return out;
}

}  // namespace

std::string capacity_note(const models::planning::capacity_outcome& c, const std::string& pointer,
                          const std::string& unit, std::optional<double> fluid_bound,
                          std::uint32_t reps, double confidence) {
  std::string out = fmt::format(
      "\npast the grid ({} adds capacity, so a larger value is assumed to meet the SLA whenever a "
      "smaller one does; {} values simulated, {} replications each, judged on {:.0f}% "
      "intervals):\n",
      pointer, c.tried.size(), reps, confidence * 100);
  if (c.found)
    out += fmt::format("needs at least {} {} (every SLA holds at {}, not at {})\n", c.holds_at,
                       unit, c.holds_at, c.fails_at);
  else
    out += fmt::format("no value up to {} {} meets every SLA\n", c.fails_at, unit);
  if (fluid_bound)
    out += fmt::format(
        "fluid lower bound: {:.4g} users/s (each wait target's class alone, served first at a "
        "constant rate, arrivals at their mean rate, nobody giving up)\n",
        *fluid_bound);
  return out;
}

json point_json(const std::vector<axis>& axes, const grid_point& p) {
  json j;
  for (std::size_t k = 0; k < axes.size(); ++k) j["values"][axes[k].pointer] = p.values[k];
  j["classes"] = json::array();
  for (std::int32_t c = -1; c < static_cast<std::int32_t>(p.scenario.classes.size()); ++c) {
    json cj{{"class", class_name(p.scenario, c)}};
    for (auto m : reported) {
      auto iv = models::table_interval(p.tables, c, m, 0.95);
      cj[models::to_string(m)] = {{"estimate", iv.mean}, {"ci", {iv.lo(), iv.hi()}}};
    }
    j["classes"].push_back(cj);
  }
  if (p.scenario.sla) {
    bool pass = true;
    j["targets"] = json::array();
    for (const auto& o : models::evaluate(*p.scenario.sla, p.tables)) {
      pass = pass && o.pass;
      j["targets"].push_back(sla_outcome_json(p.scenario, o));
    }
    j["sla_holds"] = pass;
  }
  return j;
}

std::string grid_csv(const std::vector<axis>& axes, const std::vector<grid_point>& points) {
  std::string out;
  for (const auto& ax : axes) out += ax.pointer + ",";
  out += "class,metric,estimate,ci_low,ci_high\n";
  for (const auto& p : points)
    for (std::int32_t c = -1; c < static_cast<std::int32_t>(p.scenario.classes.size()); ++c)
      for (auto m : reported) {
        auto iv = models::table_interval(p.tables, c, m, 0.95);
        for (double v : p.values) out += fmt::format("{},", v);
        out += fmt::format("{},{},{},{},{}\n", class_name(p.scenario, c), models::to_string(m),
                           csv_number(iv.mean), csv_number(iv.lo()), csv_number(iv.hi()));
      }
  return out;
}

std::string sweep_table(const std::vector<axis>& axes, const std::vector<grid_point>& points,
                        std::uint32_t reps) {
  std::string out = fmt::format("{} replications a point, 95% intervals\n\n", reps);
  std::size_t w = 10;
  for (const auto& ax : axes) w = std::max(w, ax.pointer.size());
  // One unit for both wait columns, from the largest figure of the table.
  double top = 0;
  for (const auto& p : points)
    for (std::int32_t c = -1; c < static_cast<std::int32_t>(p.scenario.classes.size()); ++c)
      for (auto m : {models::sla_metric::mean_wait_s, models::sla_metric::p95_wait_s}) {
        const auto iv = models::table_interval(p.tables, c, m, 0.95);
        for (double v : {iv.mean, iv.hi()})
          if (std::isfinite(v)) top = std::max(top, std::fabs(v));
      }
  const time_unit unit = time_unit_for(top);
  for (const auto& ax : axes) out += fmt::format("{:>{}} ", ax.pointer, w);
  out += fmt::format("{:<10} {:>22} {:>22} {:>22}   SLA\n", "class",
                     fmt::format("mean wait ({})", unit.name),
                     fmt::format("p95 wait ({})", unit.name), "refused share");
  auto cell = [](const sim::interval& iv, double scale) { return interval_text(iv, scale); };
  for (const auto& p : points) {
    bool pass = true, failed = false;
    if (p.scenario.sla)
      for (const auto& o : models::evaluate(*p.scenario.sla, p.tables)) {
        pass = pass && o.pass;
        failed = failed || o.verdict == models::sla_verdict::fail;
      }
    const auto nc = static_cast<std::int32_t>(p.scenario.classes.size());
    for (std::int32_t c = nc > 1 ? -1 : 0; c < nc; ++c) {
      const bool first = c == (nc > 1 ? -1 : 0);
      for (std::size_t k = 0; k < axes.size(); ++k)
        out += first ? fmt::format("{:>{}} ", p.values[k], w) : fmt::format("{:>{}} ", "", w);
      out += fmt::format(
          "{:<10} {:>22} {:>22} {:>22}", class_name(p.scenario, c),
          cell(models::table_interval(p.tables, c, models::sla_metric::mean_wait_s, 0.95),
               unit.seconds),
          cell(models::table_interval(p.tables, c, models::sla_metric::p95_wait_s, 0.95),
               unit.seconds),
          cell(models::table_interval(p.tables, c, models::sla_metric::refused_share, 0.95), 1));
      // Not decided (no data, or users still waiting could change it) is not a failure.
      if (first && p.scenario.sla) out += pass ? "   holds" : failed ? "   fails" : "   undecided";
      out += "\n";
    }
  }
  return out;
}

std::string search_note(const models::planning::search_outcome& s, const std::vector<axis>& axes) {
  using models::planning::search_kind;
  const auto& values = axes[0].values;
  switch (s.kind) {
    case search_kind::no_guess:
      return "no closed-form first guess here: every value was simulated\n";
    case search_kind::guess_fails:
      return fmt::format("the first guess ({}) fails in simulation: every value was simulated\n",
                         values[*s.start]);
    case search_kind::bisected:
      break;
  }
  return fmt::format(
      "every SLA holds for {} from {} to {} (bisection from the closed form's first guess "
      "{}: {} of {} values simulated; it assumes the values where every SLA holds form one "
      "interval)\n",
      axes[0].pointer, values[s.left], values[s.right], values[*s.start], s.simulated(),
      values.size());
}

std::string plan_table(const plan_view& v) {
  const auto& axes = v.axes;
  const auto& base = v.base;
  const auto& points = v.points;
  const auto& ran = v.ran;
  std::string out =
      fmt::format("{}: {} targets at {:.0f}% confidence, {} replications a point\n", base.name,
                  base.sla->targets.size(), base.sla->confidence * 100, v.reps);
  std::vector<bool> holds;
  for (std::size_t i = 0; i < points.size(); ++i)
    holds.push_back(ran[i] && models::planning::point_holds(points[i]));
  if (axes.size() != 1) {
    out += fmt::format("\nfeasible region (rows {}, columns {}; # = every SLA holds):\n",
                       axes[0].pointer, axes[1].pointer);
    out += fmt::format("{:>10} ", "");
    for (double x : axes[1].values) out += fmt::format("{:>8}", x);
    out += "\n";
    for (std::size_t r = 0; r < axes[0].values.size(); ++r) {
      out += fmt::format("{:>10} ", axes[0].values[r]);
      for (std::size_t c = 0; c < axes[1].values.size(); ++c)
        out += fmt::format("{:>8}", holds[r * axes[1].values.size() + c] ? "#" : ".");
      out += "\n";
    }
    return out;
  }
  // One column per SLA target: its metric's estimate and interval, "!" where it fails, so a
  // "fails" row says which target failed and by how much.
  // Every point's outcomes first: one time unit for the whole table, from its largest figure.
  std::vector<std::vector<models::sla_outcome>> outcomes(points.size());
  std::vector<models::sla_outcome> all;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!ran[i]) continue;
    outcomes[i] = models::evaluate(*points[i].scenario.sla, points[i].tables);
    all.insert(all.end(), outcomes[i].begin(), outcomes[i].end());
  }
  const time_unit unit = sla_time_unit(all);
  const auto& targets = base.sla->targets;
  std::vector<std::string> target_heads;
  std::size_t width = 22;
  for (const auto& t : targets) {
    std::string h = sla_target_text(base, t, unit);
    width = std::max(width, h.size());
    target_heads.push_back(std::move(h));
  }
  out += fmt::format("\nknob {}; times in {}\n{:>12}", axes[0].pointer, unit.name, "value");
  for (const auto& h : target_heads) out += fmt::format(" {:>{}}", h, width);
  out += "   SLA   Pareto";
  out += v.any_guess ? "  closed form\n" : "\n";
  std::size_t simulated = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!ran[i]) continue;
    ++simulated;
    out += fmt::format("{:>12}", points[i].values[0]);
    for (const auto& o : outcomes[i])
      out += fmt::format(" {:>{}}",
                         fmt::format("{}{}", sla_estimate_text(o, unit),
                                     o.pass                                        ? "  "
                                     : o.verdict == models::sla_verdict::undecided ? " ?"
                                                                                   : " !"),
                         width);
    out += fmt::format("   {:<5} {:<6}", holds[i] ? "holds" : "fails", v.pareto[i] ? "*" : "");
    if (v.any_guess) out += !v.guess[i] ? "  -" : *v.guess[i] ? "  holds" : "  fails";
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  out += fmt::format(
      "(each target: estimate ± half-width of its {:.0f}% interval, ! where it fails, ? where it "
      "is undecided "
      "(users still waiting at the end, or no data); Pareto: on the "
      "mean waits of the first two classes)\n",
      base.sla->confidence * 100);
  if (v.any_guess) {
    // The closed form judges the mean-wait targets only, from point values.
    std::vector<double> guessed;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (v.guess[i] == true) guessed.push_back(points[i].values[0]);
    out +=
        guessed.empty()
            ? "\nclosed-form first guess: no value meets the mean-wait targets\n"
            : fmt::format("\nclosed-form first guess: the mean-wait targets hold from {} to {}\n",
                          guessed.front(), guessed.back());
  }
  const auto feasible = models::planning::find_feasible(
      {holds.begin(), holds.begin() + static_cast<std::ptrdiff_t>(v.grid_points)});
  const bool bisected = v.search_note.rfind("every SLA holds", 0) == 0;
  if (v.search) {
    out += "\n" + v.search_note;
    // Bisected: its answer stands; the table shows the values it simulated.
    if (!bisected && feasible.count == 0)
      out += fmt::format("no value of {} in the range meets every SLA\n", axes[0].pointer);
  }
  if (!v.search || !bisected) {
    if (feasible.count == 0) {
      if (!v.search)
        out += fmt::format("\nno value of {} in the range meets every SLA\n", axes[0].pointer);
      out += binding_note(v, outcomes, unit);
    } else {
      out += fmt::format("\nevery SLA holds for {} from {} to {} ({} of {} values tried{})\n",
                         axes[0].pointer, points[feasible.first].values[0],
                         points[feasible.last].values[0], feasible.count, simulated,
                         feasible.contiguous ? "" : "; not contiguous, see the table");
    }
  }
  return out + v.capacity_note;
}

json sweep_json(const std::vector<axis>& axes, const std::vector<grid_point>& points,
                std::uint32_t reps, std::string_view version) {
  json j{{"kind", "sweep"},
         {"schema_version", 1},
         {"tool", {{"name", "waitroom"}, {"version", version}}},
         {"replications", reps},
         {"confidence", 0.95},
         {"axes", json::array()},
         {"points", json::array()}};
  for (const auto& ax : axes) j["axes"].push_back(ax.pointer);
  if (!points.empty()) {
    j["scenario_name"] = points.front().scenario.name;
    j["seed"] = points.front().scenario.seed;
  }
  for (const auto& p : points) j["points"].push_back(point_json(axes, p));
  return j;
}

json plan_json(const models::plan_state& p, std::uint64_t seed,
               const std::vector<std::string>& ties, std::string_view version) {
  const auto& base = p.base;
  json j{{"kind", "plan"},
         {"schema_version", 1},
         {"tool", {{"name", "waitroom"}, {"version", version}}},
         {"replications", p.reps},
         {"confidence", base.sla->confidence},
         {"seed", seed},
         {"scenario_name", base.name},
         {"scenario", models::to_json(base)},
         {"axes", json::array()},
         {"ties", ties},
         {"search", p.search.has_value()},
         {"points", json::array()}};
  for (const auto& ax : p.axes) j["axes"].push_back(ax.pointer);
  if (p.capacity) {
    const auto& c = *p.capacity;
    j["past_grid"] = {{"unit", *p.capacity_unit},
                      {"found", c.found},
                      {"least", c.found ? json(c.holds_at) : json(nullptr)},
                      {"fails_at", c.fails_at},
                      {"step", c.step},
                      {"simulated", c.tried.size()},
                      {"fluid_lower_bound", p.fluid_bound ? json(*p.fluid_bound) : json(nullptr)}};
  }
  const std::vector<bool> pareto = models::plan_front(p);
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    if (!p.ran[i]) continue;
    json pj = point_json(p.axes, p.points[i]);
    if (p.axes.size() == 1) pj["pareto"] = static_cast<bool>(pareto[i]);
    if (p.guess[i]) pj["closed_form_holds"] = *p.guess[i];
    if (i >= p.grid_points) pj["past_grid"] = true;
    j["points"].push_back(std::move(pj));
  }
  return j;
}

std::string plan_text(const models::plan_state& p) {
  const std::vector<bool> pareto = models::plan_front(p);
  const std::string search = p.search ? search_note(*p.search, p.axes) : std::string();
  const std::string capacity = p.capacity
                                   ? capacity_note(*p.capacity, p.axes[0].pointer, *p.capacity_unit,
                                                   p.fluid_bound, p.reps, p.base.sla->confidence)
                                   : std::string();
  return plan_table({p.axes, p.base, p.points, p.guess, p.any_guess, p.reps, p.ran, pareto,
                     p.search.has_value(), search, p.grid_points, capacity});
}

std::string plan_csv(const models::plan_state& p) {
  std::vector<grid_point> simulated;  // --search: only the values it simulated
  for (std::size_t i = 0; i < p.points.size(); ++i)
    if (p.ran[i]) simulated.push_back(p.points[i]);
  return grid_csv(p.axes, simulated);
}

}  // namespace waitroom::reports
