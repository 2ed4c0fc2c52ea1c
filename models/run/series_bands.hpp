#pragma once
// Replications' time series with 95% bands: replications keep summaries only, so each replication's
// queue samples are folded, before they are dropped, into sums per sample index: of the number
// waiting (everyone and per class) and of the releases in the interval, and of their squares. The
// sums are integers (a 128-bit sum of squares), so the total is the same whatever the order
// replications finish in, the thread count, or how shards split them: merged shards give the same
// bytes as one process.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/results/result.hpp"
#include "sim/confidence.hpp"

namespace waitroom::models {

class series_bands {
 public:
  // Columns: 0 everyone waiting, 1 + c class c waiting, 1 + classes released in the interval.
  explicit series_bands(std::size_t classes = 0) : columns_(classes + 2) {}

  // One replication's samples on the sampling grid (its last sample, at its end time off the
  // grid, is left out). A replication that ended before a later index counts there as empty:
  // it drained (or reached a horizon the others share), nobody waits and nobody is released.
  void add(const room_result& r);
  void merge(const series_bands& o);

  std::size_t columns() const { return columns_; }
  std::size_t samples() const { return t_s_.size(); }
  std::uint64_t replications() const { return replications_; }
  const std::vector<double>& t_s() const { return t_s_; }
  // Mean over replications and its Student-t interval at `level` (pointwise per index: not a
  // simultaneous band); a single replication has an infinite half-width.
  sim::interval at(std::size_t k, std::size_t column, double level) const;

  // The raw sums (shard files): t_s, sum, sum of squares as (high, low) 64-bit words.
  const std::vector<std::uint64_t>& sums() const { return sum_; }
  const std::vector<std::uint64_t>& squares_high() const { return sq_hi_; }
  const std::vector<std::uint64_t>& squares_low() const { return sq_lo_; }
  // Rebuilt from those: false when the shapes disagree.
  bool restore(std::uint64_t replications, std::vector<double> t_s, std::vector<std::uint64_t> sum,
               std::vector<std::uint64_t> sq_hi, std::vector<std::uint64_t> sq_lo);
  std::size_t memory_bytes() const {
    return t_s_.capacity() * sizeof(double) +
           (sum_.capacity() + sq_hi_.capacity() + sq_lo_.capacity()) * sizeof(std::uint64_t);
  }

 private:
  void grow(std::size_t samples);
  void add_at(std::size_t i, std::uint64_t x);

  std::size_t columns_;
  std::uint64_t replications_ = 0;
  std::vector<double> t_s_;
  std::vector<std::uint64_t> sum_, sq_hi_, sq_lo_;  // [k * columns + j]
};

}  // namespace waitroom::models
