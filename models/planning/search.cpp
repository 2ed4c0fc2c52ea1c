#include "models/planning/search.hpp"

#include <algorithm>

namespace waitroom::models::planning {

std::size_t search_outcome::simulated() const {
  return static_cast<std::size_t>(std::count(ran.begin(), ran.end(), true));
}

search_outcome search_feasible(const std::vector<std::optional<bool>>& guess,
                               const std::function<bool(std::size_t)>& holds) {
  search_outcome out;
  const std::size_t n = guess.size();
  out.ran.assign(n, false);
  std::vector<bool> verdict(n, false);
  auto simulate = [&](std::size_t i) {
    if (!out.ran[i]) {
      verdict[i] = holds(i);
      out.ran[i] = true;
    }
    return verdict[i];
  };
  std::vector<std::size_t> good;
  for (std::size_t i = 0; i < n; ++i)
    if (guess[i] == true) good.push_back(i);
  if (good.empty()) return out;  // no_guess
  out.start = good[good.size() / 2];
  if (!simulate(*out.start)) {
    out.kind = search_kind::guess_fails;
    return out;
  }
  out.kind = search_kind::bisected;
  // Bisection on each side of the first guess, assuming the values where every SLA holds
  // form one interval.
  out.left = 0;
  out.right = n - 1;
  if (!simulate(0)) {
    std::size_t bad = 0, ok = *out.start;
    while (ok - bad > 1) {
      const std::size_t mid = bad + (ok - bad) / 2;
      (simulate(mid) ? ok : bad) = mid;
    }
    out.left = ok;
  }
  if (!simulate(n - 1)) {
    std::size_t ok = *out.start, bad = n - 1;
    while (bad - ok > 1) {
      const std::size_t mid = ok + (bad - ok) / 2;
      (simulate(mid) ? ok : bad) = mid;
    }
    out.right = ok;
  }
  return out;
}

}  // namespace waitroom::models::planning
