#pragma once
// The nearest-rank quantile of a sample: the smallest value that at least a share q of the
// sample is at or below, the rule log_histogram::quantile follows, so a percentile of a
// sample and of a run's histogram mean the same thing.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace waitroom::sim {

// The index of the q-quantile (0 <= q <= 1) in a sorted sample of n > 0 values.
inline std::size_t nearest_rank_index(std::size_t n, double q) {
  const double rank = std::ceil(q * static_cast<double>(n));
  return rank < 1 ? 0 : std::min(n, static_cast<std::size_t>(rank)) - 1;
}

// Of a sorted, non-empty sample.
inline double sorted_quantile(const std::vector<double>& sorted, double q) {
  return sorted[nearest_rank_index(sorted.size(), q)];
}

// Of a non-empty sample, reordered (partially sorted) in place.
inline double sample_quantile(std::vector<double>& v, double q) {
  const std::size_t k = nearest_rank_index(v.size(), q);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace waitroom::sim
