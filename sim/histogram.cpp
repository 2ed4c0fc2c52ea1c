#include "sim/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace waitroom::sim {

void log_histogram::merge(const log_histogram& o) {
  if (o.total_ == 0) return;
  for (std::size_t i = 0; i < bucket_count; ++i) counts_[i] += o.counts_[i];
  min_ = total_ ? std::min(min_, o.min_) : o.min_;
  max_ = std::max(max_, o.max_);
  total_ += o.total_;
}

bool log_histogram::restore(const std::vector<std::uint64_t>& lowers,
                            const std::vector<std::uint64_t>& counts, std::uint64_t min,
                            std::uint64_t max) {
  if (lowers.size() != counts.size()) return false;
  *this = log_histogram();
  for (std::size_t k = 0; k < lowers.size(); ++k) {
    const std::size_t i = index_of(lowers[k]);
    if (lower_bound(i) != lowers[k] || counts[k] == 0) return false;
    counts_[i] += counts[k];
    total_ += counts[k];
  }
  min_ = total_ ? min : 0;
  max_ = total_ ? max : 0;
  return min_ <= max_;
}

double log_histogram::quantile(double q) const {
  if (total_ == 0) return 0.0;
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_)));
  rank = std::clamp<std::uint64_t>(rank, 1, total_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < bucket_count; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      double lo = static_cast<double>(lower_bound(i));
      double hi = static_cast<double>(upper_bound(i) - 1);
      double mid = 0.5 * (lo + hi);
      return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

std::vector<log_histogram::bucket_row> log_histogram::nonzero_buckets() const {
  std::vector<bucket_row> out;
  for (std::size_t i = 0; i < bucket_count; ++i)
    if (counts_[i]) out.push_back({lower_bound(i), upper_bound(i), counts_[i]});
  return out;
}

}  // namespace waitroom::sim
