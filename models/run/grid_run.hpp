#pragma once
// A sweep's or plan's grid simulated: each point's scenario loaded with the point's values,
// its replications on common random numbers (every point on the same seed), and a plan's
// simulation of its grid (every value, or the bisection from the closed form's first guess)
// and, for a capacity knob no value of which holds, past the grid's top. The program and the
// Python module both plan through here, so they simulate the same values.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/planning/capacity.hpp"
#include "models/planning/grid.hpp"
#include "models/planning/search.hpp"
#include "models/spec/scenario.hpp"

namespace waitroom::models {

// A knob set from the first axis' value (`plan --tie`); `source` names it in errors.
struct grid_tie {
  std::string pointer;
  std::function<double(double)> value;
  std::string source;
};

// A point's scenario: the base with these "/pointer=value" assignments applied, validated.
using point_loader = std::function<scenario(const std::vector<std::string>& assignments)>;

// Every point of the grid (the cartesian product of the axes, first axis outermost), not yet
// simulated, each on `seed` when given. A value the scenario refuses is the grid's fault, not
// the file's: the sim::input_error names the axis' (or tie's) source and the point.
std::vector<planning::grid_point> grid_points(const std::vector<planning::axis>& axes,
                                              const std::vector<grid_tie>& ties,
                                              const point_loader& load,
                                              std::optional<std::uint64_t> seed);

// Replications `which` of point p on `threads` threads: p.tables holds one metric table per
// replication in `which`, in that order. When `stop` (optional) becomes true, every running
// replication ends at its next sample and replications_stopped is thrown (a caller's Ctrl-C).
void run_replications(planning::grid_point& p, const std::vector<std::uint32_t>& which,
                      unsigned threads, const std::atomic<bool>* stop = nullptr);
// Replications 0 .. reps - 1 of point p.
void run_replications(planning::grid_point& p, std::uint32_t reps, unsigned threads,
                      const std::atomic<bool>* stop = nullptr);

// A knob the scenario holds as a whole number (batch, slots): its default step is whole too.
bool integer_knob(const scenario& base, const std::string& pointer);

// A plan: its grid, which points were simulated, and what its searches found.
struct plan_state {
  std::vector<planning::axis> axes;
  std::vector<grid_tie> ties;
  scenario base;
  std::vector<planning::grid_point> points;  // the grid's, then those simulated past it
  std::vector<std::optional<bool>> guess;    // the closed form's verdict, per point
  bool any_guess = false;
  std::uint32_t reps = 0;       // each point's replications
  std::size_t grid_points = 0;  // points from this index on were simulated past the grid
  std::vector<bool> ran;        // the points simulated
  std::optional<planning::search_outcome> search;      // the bisection's, when asked for
  std::optional<planning::capacity_outcome> capacity;  // the search past the grid's, if run
  std::optional<std::string> capacity_unit;            // its knob's unit
  std::optional<double> fluid_bound;                   // rate_per_s past the grid: users/s
};

// The plan's grid, its points' scenarios (not yet simulated) and the closed form's guesses.
// The base must have an sla block.
plan_state prepare_plan(std::vector<planning::axis> axes, std::vector<grid_tie> ties, scenario base,
                        std::uint32_t reps, const point_loader& load,
                        std::optional<std::uint64_t> seed);

// How a plan is simulated: on `threads` threads; `on_sweep` before the first value when every
// value is simulated (not after a bisection), `on_point` after each of those; `stop` as for
// run_replications, checked at every value.
struct plan_run {
  unsigned threads = 1;
  std::function<void()> on_sweep, on_point;
  const std::atomic<bool>* stop = nullptr;
};

// Simulates the plan: every grid value, or with `bisect` the values the bisection needs
// (every value when it cannot bisect); then past the grid.
void simulate_plan(plan_state& p, bool bisect, const point_loader& load,
                   std::optional<std::uint64_t> seed, const plan_run& how);

// No value of the grid simulated meets every SLA and its one knob adds capacity: simulates
// past the grid's top for the least value that does (points appended, marked ran).
void search_past_grid(plan_state& p, const point_loader& load, std::optional<std::uint64_t> seed,
                      const plan_run& how);

// The values of a one-knob plan where every SLA holds, ascending: the bisected interval's
// grid values, or those simulated that hold; then those past the grid that hold.
std::vector<double> plan_feasible(const plan_state& p);

// A one-knob plan's points on the front of the first two classes' mean waits (all false for
// two knobs).
std::vector<bool> plan_front(const plan_state& p);

}  // namespace waitroom::models
