#include "models/run/grid_run.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/planning/first_guess.hpp"
#include "models/planning/pareto.hpp"
#include "models/room/room.hpp"
#include "models/run/replicate.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"

namespace waitroom::models {

namespace {

using planning::axis;
using planning::grid_point;
using planning::json_number;

// Point i's scenario, an error of the scenario's rewritten to name the flag whose value it
// refused (or the point, when the error is about another key).
scenario load_point(const std::vector<axis>& axes, const std::vector<grid_tie>& ties,
                    const point_loader& load, const std::vector<double>& values, std::size_t i,
                    std::size_t total) {
  std::vector<std::string> assignments;
  for (std::size_t k = 0; k < axes.size(); ++k)
    assignments.push_back(axes[k].pointer + "=" + json_number(values[k]));
  for (const auto& t : ties)
    assignments.push_back(t.pointer + "=" + json_number(t.value(values[0])));
  try {
    return load(assignments);
  } catch (const sim::input_error& e) {
    std::string point;
    for (std::size_t k = 0; k < axes.size(); ++k)
      point += fmt::format("{}{}={}", k ? ", " : "", axes[k].pointer, json_number(values[k]));
    for (const auto& t : ties)
      point += fmt::format(", {}={}", t.pointer, json_number(t.value(values.front())));
    // The flag whose pointer the error is about (or a key below it).
    auto about = [&](const std::string& pointer) {
      const std::string& w = e.where();
      const auto at = w.rfind(": " + pointer);
      if (at == std::string::npos) return false;
      const auto end = at + 2 + pointer.size();
      return end == w.size() || w[end] == '/';
    };
    std::string flag;
    for (const auto& ax : axes)
      if (flag.empty() && about(ax.pointer)) flag = ax.source;
    for (const auto& t : ties)
      if (flag.empty() && about(t.pointer)) flag = t.source;
    const std::string where =
        flag.empty() ? fmt::format("grid point {} of {} ({}): {}", i + 1, total, point, e.where())
                     : fmt::format("{} at grid point {} of {} ({})", flag, i + 1, total, point);
    throw sim::input_error(where, e.expected(), e.found());
  }
}

}  // namespace

std::vector<grid_point> grid_points(const std::vector<axis>& axes,
                                    const std::vector<grid_tie>& ties, const point_loader& load,
                                    std::optional<std::uint64_t> seed) {
  const std::size_t total = planning::grid_size(axes);
  std::vector<grid_point> out;
  for (std::size_t i = 0; i < total; ++i) {
    const std::vector<double> values = planning::grid_values(axes, i);
    scenario s = load_point(axes, ties, load, values, i, total);
    if (seed) s.seed = *seed;
    out.push_back({values, std::move(s), {}});
  }
  return out;
}

void run_replications(grid_point& p, const std::vector<std::uint32_t>& which, unsigned threads,
                      const std::atomic<bool>* stop) {
  std::vector<metric_table> tables(which.size());
  const auto& s = p.scenario;
  sim::parallel_for(which.size(), threads, [&](std::size_t k) {
    if (!stop) {
      tables[k] = tabulate(run_scenario(s, s.seed, which[k]));
      return;
    }
    if (stop->load(std::memory_order_relaxed)) throw replications_stopped();
    tables[k] = tabulate(run_scenario(s, s.seed, which[k], [stop](double, auto, auto) {
      if (stop->load(std::memory_order_relaxed)) throw replications_stopped();
    }));
  });
  p.tables = std::move(tables);
}

void run_replications(grid_point& p, std::uint32_t reps, unsigned threads,
                      const std::atomic<bool>* stop) {
  std::vector<std::uint32_t> all(reps);
  for (std::uint32_t r = 0; r < reps; ++r) all[r] = r;
  run_replications(p, all, threads, stop);
}

bool integer_knob(const scenario& base, const std::string& pointer) {
  try {
    const nlohmann::json effective = to_json(base);
    const nlohmann::json::json_pointer p(pointer);
    return effective.contains(p) && effective.at(p).is_number_integer();
  } catch (const nlohmann::json::exception&) {
    return false;  // not a pointer into the scenario: loading the first point says so
  }
}

plan_state prepare_plan(std::vector<axis> axes, std::vector<grid_tie> ties, scenario base,
                        std::uint32_t reps, const point_loader& load,
                        std::optional<std::uint64_t> seed) {
  plan_state p;
  p.points = grid_points(axes, ties, load, seed);
  p.axes = std::move(axes);
  p.ties = std::move(ties);
  p.base = std::move(base);
  p.reps = reps;
  p.grid_points = p.points.size();
  p.ran.assign(p.points.size(), false);
  for (const auto& pt : p.points) {
    p.guess.push_back(planning::closed_form_holds(pt.scenario));
    p.any_guess = p.any_guess || p.guess.back().has_value();
  }
  return p;
}

void simulate_plan(plan_state& p, bool bisect, const point_loader& load,
                   std::optional<std::uint64_t> seed, const plan_run& how) {
  auto simulate = [&](std::size_t i) {
    if (!p.ran[i]) {
      run_replications(p.points[i], p.reps, how.threads, how.stop);
      p.ran[i] = true;
    }
    return planning::point_holds(p.points[i]);
  };
  if (bisect) p.search = planning::search_feasible(p.guess, simulate);
  if (!p.search || p.search->kind != planning::search_kind::bisected) {
    if (how.on_sweep) how.on_sweep();
    for (std::size_t i = 0; i < p.points.size(); ++i) {
      simulate(i);
      if (how.on_point) how.on_point();
    }
  }
  search_past_grid(p, load, seed, how);
}

void search_past_grid(plan_state& p, const point_loader& load, std::optional<std::uint64_t> seed,
                      const plan_run& how) {
  if (p.axes.size() != 1) return;
  const auto& ax = p.axes[0];
  const auto unit = planning::capacity_unit(ax.pointer);
  if (!unit) return;
  double top = 0;
  for (std::size_t i = 0; i < p.grid_points; ++i) {
    if (!p.ran[i]) continue;
    if (planning::point_holds(p.points[i])) return;
    top = std::max(top, p.points[i].values[0]);
  }
  std::vector<grid_point> probes;
  const auto outcome =
      planning::least_capacity(top, integer_knob(p.base, ax.pointer), [&](double v) {
        const std::vector<axis> one{{ax.pointer, {v}, "past the grid: " + ax.pointer}};
        auto pt = grid_points(one, p.ties, load, seed);
        run_replications(pt.front(), p.reps, how.threads, how.stop);
        probes.push_back(std::move(pt.front()));
        return planning::point_holds(probes.back());
      });
  std::sort(probes.begin(), probes.end(),
            [](const grid_point& x, const grid_point& y) { return x.values[0] < y.values[0]; });
  for (auto& pt : probes) {
    p.guess.push_back(planning::closed_form_holds(pt.scenario));
    p.any_guess = p.any_guess || p.guess.back().has_value();
    p.points.push_back(std::move(pt));
    p.ran.push_back(true);
  }
  p.capacity = outcome;
  p.capacity_unit = *unit;
  if (ax.pointer == "/release/rate_per_s") p.fluid_bound = planning::fluid_least_rate(p.base);
}

std::vector<double> plan_feasible(const plan_state& p) {
  std::vector<double> out;
  if (p.axes.size() != 1) return out;
  const bool bisected = p.search && p.search->kind == planning::search_kind::bisected;
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    if (bisected && i < p.grid_points) {  // the interval stands for the values it skipped
      if (i >= p.search->left && i <= p.search->right) out.push_back(p.points[i].values[0]);
    } else if (p.ran[i] && planning::point_holds(p.points[i])) {
      out.push_back(p.points[i].values[0]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<bool> plan_front(const plan_state& p) {
  if (p.axes.size() != 1) return std::vector<bool>(p.points.size(), false);
  return planning::mean_wait_front(p.points, p.ran, p.base.classes.size(), p.base.sla->confidence);
}

}  // namespace waitroom::models
