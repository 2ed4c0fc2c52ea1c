#include "models/room/warmup.hpp"

#include <limits>

namespace waitroom::models {

std::size_t mser_truncation(const std::vector<double>& y) {
  const std::size_t n = y.size();
  if (n < 4) return 0;
  // Suffix sums give each candidate's variance in O(1).
  std::vector<double> s1(n + 1, 0.0), s2(n + 1, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    s1[i] = s1[i + 1] + y[i];
    s2[i] = s2[i + 1] + y[i] * y[i];
  }
  std::size_t best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d <= n / 2; ++d) {
    const double m = static_cast<double>(n - d);
    const double ss = s2[d] - s1[d] * s1[d] / m;
    const double value = ss / (m * m);
    if (value < best_value) {
      best_value = value;
      best = d;
    }
  }
  return best;
}

}  // namespace waitroom::models
