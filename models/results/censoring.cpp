#include "models/results/censoring.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace waitroom::models {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The value at nearest rank `rank` (1-based) of the union of two histograms (b may be absent),
// reported as log_histogram::quantile does: the bucket midpoint clamped to [min, max].
double at_rank(const sim::log_histogram& a, const sim::log_histogram* b, std::uint64_t rank) {
  const std::uint64_t total = a.count() + (b ? b->count() : 0);
  const bool a_any = a.count() > 0, b_any = b && b->count() > 0;
  const double lo = static_cast<double>(a_any && b_any ? std::min(a.min(), b->min())
                                                       : (a_any ? a.min() : b->min()));
  const double hi = static_cast<double>(std::max(a.max(), b ? b->max() : 0));
  rank = std::clamp<std::uint64_t>(rank, 1, total);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < sim::log_histogram::bucket_count; ++i) {
    seen += a.bucket(i) + (b ? b->bucket(i) : 0);
    if (seen >= rank) {
      const double l = static_cast<double>(sim::log_histogram::lower_bound(i));
      const double u = static_cast<double>(sim::log_histogram::upper_bound(i) - 1);
      return std::clamp(0.5 * (l + u), lo, hi);
    }
  }
  return hi;
}

}  // namespace

stat_bounds mean_bounds(const wait_stats& w) {
  const std::uint64_t n = w.wait_s.count(), c = w.censored_s.count();
  if (n + c == 0) return {nan, std::nullopt};
  if (c == 0) return {w.wait_s.mean(), w.wait_s.mean()};
  const double sum =
      w.wait_s.mean() * static_cast<double>(n) + w.censored_s.mean() * static_cast<double>(c);
  return {sum / static_cast<double>(n + c), std::nullopt};
}

stat_bounds max_bounds(const wait_stats& w) {
  const std::uint64_t n = w.wait_s.count(), c = w.censored_s.count();
  if (n + c == 0) return {nan, std::nullopt};
  if (c == 0) return {w.wait_s.max(), w.wait_s.max()};
  return {std::max(n ? w.wait_s.max() : 0.0, w.censored_s.max()), std::nullopt};
}

stat_bounds quantile_bounds(const wait_stats& w, double q) {
  const std::uint64_t n = w.wait_s.count(), c = w.censored_s.count();
  if (n + c == 0) return {nan, std::nullopt};
  if (c == 0) {
    const double v = w.wait_ns.quantile(q) * 1e-9;
    return {v, v};
  }
  const auto rank = std::clamp<std::uint64_t>(
      static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n + c))), 1, n + c);
  const double lower = at_rank(w.wait_ns, w.censored_ns ? &*w.censored_ns : nullptr, rank) * 1e-9;
  // Censored users at +infinity sit above every released wait: the rank is decided by the
  // released waits alone when it falls among them.
  if (rank > n) return {lower, std::nullopt};
  return {lower, at_rank(w.wait_ns, nullptr, rank) * 1e-9};
}

}  // namespace waitroom::models
