#include "sim/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace waitroom::sim {

template <class F>
void log_histogram::for_each_nonzero(F f) const {
  if (compacted()) {
    for (const auto& e : sparse_) f(static_cast<std::size_t>(e.index), e.count);
    return;
  }
  for (std::size_t i = 0; i < bucket_count; ++i)
    if (counts_[i]) f(i, counts_[i]);
}

std::uint64_t log_histogram::bucket(std::size_t i) const {
  if (!compacted()) return counts_[i];
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), i,
                             [](const sparse_entry& e, std::size_t k) { return e.index < k; });
  return it != sparse_.end() && it->index == i ? it->count : 0;
}

void log_histogram::compact() {
  if (compacted()) return;
  std::vector<sparse_entry> s;
  for (std::size_t i = 0; i < bucket_count; ++i)
    if (counts_[i]) s.push_back({i, counts_[i]});
  s.shrink_to_fit();
  sparse_ = std::move(s);
  counts_ = std::vector<std::uint64_t>();  // releases the 64 KiB
}

void log_histogram::densify() {
  counts_.assign(bucket_count, 0);
  for (const auto& e : sparse_) counts_[e.index] = e.count;
  sparse_ = std::vector<sparse_entry>();
}

void log_histogram::merge(const log_histogram& o) {
  if (o.total_ == 0) return;
  if (compacted()) densify();
  o.for_each_nonzero([&](std::size_t i, std::uint64_t n) { counts_[i] += n; });
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
  bool found = false;
  double out = static_cast<double>(max_);
  for_each_nonzero([&](std::size_t i, std::uint64_t n) {
    if (found) return;
    seen += n;
    if (seen >= rank) {
      double lo = static_cast<double>(lower_bound(i));
      double hi = static_cast<double>(upper_bound(i) - 1);
      double mid = 0.5 * (lo + hi);
      out = std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
      found = true;
    }
  });
  return out;
}

std::vector<log_histogram::bucket_row> log_histogram::nonzero_buckets() const {
  std::vector<bucket_row> out;
  for_each_nonzero([&](std::size_t i, std::uint64_t n) {
    out.push_back({lower_bound(i), upper_bound(i), n});
  });
  return out;
}

}  // namespace waitroom::sim
