#pragma once
// Which points are Pareto-optimal for two costs (a plan's mean waits of its first two
// classes), and where a one-knob plan's SLA holds.
#include <cstddef>
#include <utility>
#include <vector>

#include "models/planning/grid.hpp"

namespace waitroom::models::planning {

// Point i (of those included) is on the front when no other included point is at least as
// low in both costs and lower in one. Points not included are never on it.
std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& costs,
                               const std::vector<bool>& included);

// The values where every SLA holds, from `holds` per value (false where not simulated).
struct feasible_range {
  std::size_t count = 0;            // values that hold; 0: none
  std::size_t first = 0, last = 0;  // the first and last that hold
  bool contiguous = true;           // no value between them fails (or was not simulated)
};
feasible_range find_feasible(const std::vector<bool>& holds);

// A one-knob plan's front on the mean waits of the first two classes, over the points simulated
// (`ran`); none on it with fewer than two classes.
std::vector<bool> mean_wait_front(const std::vector<grid_point>& points,
                                  const std::vector<bool>& ran, std::size_t classes,
                                  double confidence);

}  // namespace waitroom::models::planning
