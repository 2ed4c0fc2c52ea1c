#pragma once
// A log-linear histogram of non-negative integer values (nanoseconds): exact below 256,
// above that 128 linear buckets per power of two, so a bucket spans at most 1/128 of its
// lower bound (< 0.79%) and a quantile reported at the bucket midpoint is within 0.4%.
// Histograms merge exactly by adding counts.
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace waitroom::sim {

class log_histogram {
 public:
  static constexpr int sub_bits = 7;  // 128 sub-buckets per octave
  static constexpr std::uint64_t sub_count = std::uint64_t{1} << sub_bits;
  static constexpr std::size_t bucket_count = 64 * sub_count;
  static constexpr double max_relative_width = 1.0 / sub_count;

  log_histogram() : counts_(bucket_count, 0) {}

  static std::size_t index_of(std::uint64_t v) {
    int width = static_cast<int>(std::bit_width(v));
    if (width <= sub_bits + 1) return static_cast<std::size_t>(v);
    int shift = width - (sub_bits + 1);
    return (static_cast<std::size_t>(shift) << sub_bits) + static_cast<std::size_t>(v >> shift);
  }
  static std::uint64_t lower_bound(std::size_t i) {
    if (i < 2 * sub_count) return i;
    std::size_t shift = (i >> sub_bits) - 1;
    std::uint64_t m = (i & (sub_count - 1)) | sub_count;
    return m << shift;
  }
  // One past the largest value in bucket i.
  static std::uint64_t upper_bound(std::size_t i) {
    if (i < 2 * sub_count) return i + 1;
    std::size_t shift = (i >> sub_bits) - 1;
    return lower_bound(i) + (std::uint64_t{1} << shift);
  }

  // Adding is for a histogram still being filled: not after compact() (merge() is fine).
  void add(std::int64_t v) { add(v, 1); }
  void add(std::int64_t v, std::uint64_t n) {
    auto u = static_cast<std::uint64_t>(v < 0 ? 0 : v);
    counts_[index_of(u)] += n;
    total_ += n;
    if (total_ == n || u < min_) min_ = u;
    if (u > max_) max_ = u;
  }
  void merge(const log_histogram& o);
  // Keeps only the non-empty buckets (16 bytes each instead of 64 KiB for all of them):
  // what a finished replication's summary holds. merge() into it makes it dense again.
  void compact();
  bool compacted() const { return counts_.empty(); }
  std::size_t memory_bytes() const {
    return counts_.capacity() * sizeof(std::uint64_t) + sparse_.capacity() * sizeof(sparse_entry);
  }
  // Rebuilt from nonzero_buckets() and the exact min and max (shard files): false when a
  // bucket's bounds are not a bucket of this histogram.
  bool restore(const std::vector<std::uint64_t>& lowers, const std::vector<std::uint64_t>& counts,
               std::uint64_t min, std::uint64_t max);

  std::uint64_t count() const { return total_; }
  std::uint64_t bucket(std::size_t i) const;
  std::uint64_t min() const { return total_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  // Nearest-rank quantile, reported at the bucket midpoint clamped to [min, max].
  double quantile(double q) const;

  struct bucket_row {
    std::uint64_t lower, upper, count;  // [lower, upper)
  };
  std::vector<bucket_row> nonzero_buckets() const;

 private:
  struct sparse_entry {
    std::uint64_t index, count;
  };
  void densify();
  template <class F>
  void for_each_nonzero(F f) const;

  std::vector<std::uint64_t> counts_;  // every bucket, or empty once compacted
  std::vector<sparse_entry> sparse_;   // the non-empty buckets by index, once compacted
  std::uint64_t total_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
};

}  // namespace waitroom::sim
