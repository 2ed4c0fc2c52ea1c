#include "models/planning/pareto.hpp"

#include <algorithm>

namespace waitroom::models::planning {

std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& costs,
                               const std::vector<bool>& included) {
  std::vector<bool> out(costs.size(), false);
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (!included[i]) continue;
    bool dominated = false;
    for (std::size_t k = 0; k < costs.size() && !dominated; ++k) {
      if (k == i || !included[k]) continue;
      const auto [a0, a1] = costs[k];
      const auto [b0, b1] = costs[i];
      dominated = a0 <= b0 && a1 <= b1 && (a0 < b0 || a1 < b1);
    }
    out[i] = !dominated;
  }
  return out;
}

feasible_range find_feasible(const std::vector<bool>& holds) {
  feasible_range r;
  r.count = static_cast<std::size_t>(std::count(holds.begin(), holds.end(), true));
  if (r.count == 0) return r;
  auto first = std::find(holds.begin(), holds.end(), true);
  auto last = std::find(holds.rbegin(), holds.rend(), true).base();
  r.first = static_cast<std::size_t>(first - holds.begin());
  r.last = static_cast<std::size_t>(last - holds.begin()) - 1;
  r.contiguous = std::find(first, last, false) == last;
  return r;
}

std::vector<bool> mean_wait_front(const std::vector<grid_point>& points,
                                  const std::vector<bool>& ran, std::size_t classes,
                                  double confidence) {
  if (classes < 2) return std::vector<bool>(points.size(), false);
  std::vector<std::pair<double, double>> costs(points.size(), {0.0, 0.0});
  for (std::size_t i = 0; i < points.size(); ++i)
    if (ran[i])
      costs[i] = {table_interval(points[i].tables, 0, sla_metric::mean_wait_s, confidence).mean,
                  table_interval(points[i].tables, 1, sla_metric::mean_wait_s, confidence).mean};
  return pareto_front(costs, ran);
}

}  // namespace waitroom::models::planning
