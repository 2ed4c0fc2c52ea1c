#include "models/fit/change_points.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace waitroom::models::fit {

namespace {

// Garwood's interval for a Poisson count, as a rate over `seconds`.
std::pair<double, double> garwood(std::uint64_t c, double seconds) {
  const auto k = static_cast<double>(c);
  const double lo =
      c == 0 ? 0.0 : boost::math::quantile(boost::math::chi_squared(2 * k), 0.025) / 2;
  const double hi = boost::math::quantile(boost::math::chi_squared(2 * k + 2), 0.975) / 2;
  return {lo / seconds, hi / seconds};
}

}  // namespace

std::vector<rate_segment_fit> fit_change_points(std::span<const std::uint64_t> counts, double bin_s,
                                                change_point_options o) {
  const std::size_t n = counts.size();
  if (n == 0) throw std::invalid_argument("change points: no bins");
  if (!(bin_s > 0) || !std::isfinite(bin_s))
    throw std::invalid_argument("change points: a bin width not above 0");
  const std::size_t min_bins = std::max<std::size_t>(1, std::min(o.min_bins, n));
  const double beta = o.penalty >= 0 ? o.penalty : 2 * std::log(static_cast<double>(n));
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + static_cast<double>(counts[i]);
  const auto cost = [&](std::size_t s, std::size_t t) {  // bins [s, t)
    const double c = prefix[t] - prefix[s];
    if (c == 0) return 0.0;
    return -2 * (c * std::log(c / (static_cast<double>(t - s) * bin_s)) - c);
  };
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, inf);
  std::vector<std::size_t> last(n + 1, 0);
  best[0] = -beta;
  // Every start in `candidates` can end a segment at t (at least min_bins before it).
  std::vector<std::size_t> candidates{0}, kept;
  for (std::size_t t = min_bins; t <= n; ++t) {
    for (std::size_t s : candidates) {
      const double v = best[s] + cost(s, t) + beta;
      if (v < best[t]) {
        best[t] = v;
        last[t] = s;
      }
    }
    // Pruning: a start that cannot beat t now never will (the cost is additive in bins).
    kept.clear();
    for (std::size_t s : candidates)
      if (best[s] + cost(s, t) <= best[t]) kept.push_back(s);
    const std::size_t next = t + 1 - min_bins;  // a start the next t may use
    if (next >= min_bins) kept.push_back(next);
    candidates.swap(kept);
  }
  if (!(best[n] < inf)) throw std::invalid_argument("change points: fewer bins than a segment");
  std::vector<std::size_t> cuts{n};
  for (std::size_t t = n; t > 0; t = last[t]) cuts.push_back(last[t]);
  std::reverse(cuts.begin(), cuts.end());
  std::vector<rate_segment_fit> out;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    rate_segment_fit seg;
    seg.start_s = static_cast<double>(cuts[i]) * bin_s;
    seg.duration_s = static_cast<double>(cuts[i + 1] - cuts[i]) * bin_s;
    seg.arrivals = static_cast<std::uint64_t>(prefix[cuts[i + 1]] - prefix[cuts[i]]);
    seg.rate_per_s = static_cast<double>(seg.arrivals) / seg.duration_s;
    std::tie(seg.lo, seg.hi) = garwood(seg.arrivals, seg.duration_s);
    // A change point placed a bin or two off mixes the neighbour's rate into the segment's
    // (in about one seed in ten at a 6x step), so the interval also takes in Garwood's over
    // the interior, `edge` bins in from each change point (not from the log's ends).
    constexpr std::size_t edge = 2;
    const std::size_t from = cuts[i] + (i > 0 ? edge : 0);
    const std::size_t to = cuts[i + 1] - (i + 2 < cuts.size() ? edge : 0);
    if (to > from && to - from >= 4 * edge) {
      const auto inner = static_cast<std::uint64_t>(prefix[to] - prefix[from]);
      const auto [lo, hi] = garwood(inner, static_cast<double>(to - from) * bin_s);
      seg.lo = std::min(seg.lo, lo);
      seg.hi = std::max(seg.hi, hi);
    }
    out.push_back(seg);
  }
  return out;
}

}  // namespace waitroom::models::fit
