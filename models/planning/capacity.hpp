#pragma once
// `plan` past its grid: when no value of a capacity knob meets every SLA, the least value
// that does (doubling past the grid's top, then bisection), and the fluid lower bound that a
// closed form gives on the release rate.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/spec/scenario.hpp"

namespace waitroom::models::planning {

// A knob that adds release capacity as it grows (more users let through in the same time),
// so a larger value can only shorten waits, with the unit its values are in; none for any
// other knob.
std::optional<std::string> capacity_unit(const std::string& pointer);

struct capacity_outcome {
  bool found = false;         // some value up to the search's ceiling met every SLA
  double fails_at = 0;        // the largest value found failing (the grid's top at least)
  double holds_at = 0;        // found: the least value found holding
  double step = 0;            // the resolution: holds_at - fails_at <= step when found
  std::vector<double> tried;  // every value simulated, in the order simulated
};

// The least value above `top` (which fails) where `holds` is true, assuming it stays true
// above: doubling until it holds (at most `max_doublings` times), then bisection to a step of
// 3 significant figures of `top` (a whole number at least 1 for an integer knob). `holds`
// runs once per value, in an order that depends only on its answers.
capacity_outcome least_capacity(double top, bool integer, const std::function<bool(double)>& holds,
                                int max_doublings = 10);

// The fluid lower bound on a tick release's rate (users/s) for the scenario's wait targets:
// for each target on a class's (or everyone's) mean or percentile wait, that class alone,
// served before everyone else from the first tick at a constant rate, with its arrivals at
// their mean rate and nobody giving up; the largest of those rates. None where that model
// does not apply (arrivals other than piecewise, a backlog, returns, a stock cap, a
// controller, give-ups in a target's class) or no target is on a wait.
std::optional<double> fluid_least_rate(const scenario& s);

// The fluid model's waits: users arriving at `segments`' rates (times `share`) from t = 0,
// released at `rate` users/s from `start_s`, first come first served. The mean and the
// q-quantile (0 < q < 1) of the wait over users.
struct fluid_waits {
  double mean_s = 0;
  double quantile_s = 0;
};
fluid_waits fluid_wait(const std::vector<sim::rate_segment>& segments, double share, double start_s,
                       double rate, double q);

}  // namespace waitroom::models::planning
