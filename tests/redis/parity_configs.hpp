#pragma once
// The score policies parity is checked for: fifo, offset and level at s, ms and us, with and
// without the random suffix.
#include <ostream>
#include <string>
#include <vector>

#include "models/scores/score_policy.hpp"

namespace waitroom::testing_support {

struct named_policy {
  std::string name;
  models::score_policy policy;
};

// Test names and failure messages show the policy's name, not its bytes.
inline void PrintTo(const named_policy& p, std::ostream* os) {
  *os << p.name;
}

inline models::score_policy make_policy(models::ordering o, models::time_unit u, double noise) {
  models::score_policy p;
  p.order = o;
  p.unit = u;
  p.noise = noise;
  double per_s = 1e9 / models::score_policy::unit_ns(u);
  p.offset_units = {10.0 * per_s, 0.0};  // VIPs 10 s ahead
  p.level = {0.0, 1.0};                  // VIPs at level 0
  return p;
}

inline std::vector<named_policy> parity_policies() {
  using models::ordering;
  using models::time_unit;
  std::vector<named_policy> v;
  for (auto o : {ordering::fifo, ordering::offset, ordering::level})
    for (auto u : {time_unit::s, time_unit::ms, time_unit::us})
      v.push_back(
          {std::string(models::to_string(o)) + "_" + models::to_string(u), make_policy(o, u, 0.0)});
  v.push_back({"offset_ms_suffix", make_policy(ordering::offset, time_unit::ms, 1.0)});
  v.push_back({"fifo_s_suffix", make_policy(ordering::fifo, time_unit::s, 1.0)});
  return v;
}

}  // namespace waitroom::testing_support
