#pragma once
// The sweep's and plan's outputs for people and programs: the sweep table, the plan table (or
// two-knob map) with its verdict lines, each point's JSON and the grid's CSV.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/planning/capacity.hpp"
#include "models/planning/grid.hpp"
#include "models/planning/search.hpp"
#include "models/run/grid_run.hpp"

namespace waitroom::reports {

using models::planning::axis;
using models::planning::grid_point;

// A point's values and, per class (and "all"), the reported metrics with 95% intervals, and
// its SLA targets' verdicts when the scenario has an sla block.
nlohmann::json point_json(const std::vector<axis>& axes, const grid_point& p);
// One line per point, class and reported metric.
std::string grid_csv(const std::vector<axis>& axes, const std::vector<grid_point>& points);
// The sweep for people: one line per point and class, waits with their intervals.
std::string sweep_table(const std::vector<axis>& axes, const std::vector<grid_point>& points,
                        std::uint32_t reps);

// What `plan --search` says about its search (empty without --search).
std::string search_note(const models::planning::search_outcome& s, const std::vector<axis>& axes);

// What `plan` found past its grid for a capacity knob (the least value that meets every
// SLA, and the fluid lower bound beside it), for people.
std::string capacity_note(const models::planning::capacity_outcome& c, const std::string& pointer,
                          const std::string& unit, std::optional<double> fluid_bound,
                          std::uint32_t reps, double confidence);

struct plan_view {
  const std::vector<axis>& axes;
  const models::scenario& base;
  const std::vector<grid_point>& points;
  const std::vector<std::optional<bool>>& guess;  // the closed form's, per point
  bool any_guess;
  std::uint32_t reps;
  const std::vector<bool>& ran;     // the points simulated
  const std::vector<bool>& pareto;  // one knob: on the mean-wait front
  bool search;
  const std::string& search_note;
  std::size_t grid_points;  // points past this index were simulated past the grid
  const std::string& capacity_note;
};
// The plan's table (one knob) or feasible-region map (two), with its verdict lines.
std::string plan_table(const plan_view& v);

// The sweep as data (kind "sweep"): its axes and every point.
nlohmann::json sweep_json(const std::vector<axis>& axes, const std::vector<grid_point>& points,
                          std::uint32_t reps, std::string_view version);
// The plan as data (kind "plan"): every simulated point with each SLA target's interval and
// verdict, and what the search past the grid found. `ties`: the --tie texts.
nlohmann::json plan_json(const models::plan_state& p, std::uint64_t seed,
                         const std::vector<std::string>& ties, std::string_view version);
// The plan for people: plan_table of the state, with its search's and capacity's notes.
std::string plan_text(const models::plan_state& p);
// The grid's CSV of the points the plan simulated.
std::string plan_csv(const models::plan_state& p);

}  // namespace waitroom::reports
