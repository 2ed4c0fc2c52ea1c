#pragma once
// A sweep's or plan's grid: its axes (a JSON pointer and the values it takes), the points of
// their cartesian product, and each point's scenario and replications' metric tables.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "models/sla/sla.hpp"
#include "models/spec/scenario.hpp"

namespace waitroom::models::planning {

struct axis {
  std::string pointer;
  std::vector<double> values;
  std::string source;  // the flag and text it came from ("--range 4:8"), for error messages
};

// A finite number; otherwise sim::input_error naming `where` (the flag it came from).
double parse_number(const std::string& text, const std::string& where);
// The most values one axis takes (a --range or --vary).
inline constexpr std::size_t max_axis_values = 10000;
// "LO:HI[:STEP]" (STEP defaults to a 20th of the range, a whole number of at least 1 for an
// integer knob) into the axis' values: at most max_axis_values, rounded to 9 decimals so that
// 0.1 * 3 reads 0.3.
std::vector<double> parse_range(const std::string& text, const std::string& where,
                                bool integer = false);
// A JSON number: integral values as integers, so integer keys (batch, slots) accept them.
std::string json_number(double v);
// A knob tied to the first axis: EXPR linear in x (x, c-x, c+x, x+c, x-c, c*x, x*c).
std::function<double(double)> parse_tie(const std::string& expr, const std::string& where);

// The number of points (the product of the axes' sizes).
std::size_t grid_size(const std::vector<axis>& axes);
// Point i's value on each axis; the first axis is outermost.
std::vector<double> grid_values(const std::vector<axis>& axes, std::size_t i);

struct grid_point {
  std::vector<double> values;
  models::scenario scenario;
  std::vector<metric_table> tables;  // one per replication (a shard: only its own)
};

// Every SLA target of the point's scenario holds on its tables.
bool point_holds(const grid_point& p);

}  // namespace waitroom::models::planning
