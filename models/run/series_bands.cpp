#include "models/run/series_bands.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace waitroom::models {

namespace {
__extension__ typedef unsigned __int128 u128;  // GCC and Clang; the sums need 128 bits
}  // namespace

void series_bands::grow(std::size_t samples) {
  if (samples <= t_s_.size()) return;
  t_s_.resize(samples, std::numeric_limits<double>::quiet_NaN());
  sum_.resize(samples * columns_, 0);
  sq_hi_.resize(samples * columns_, 0);
  sq_lo_.resize(samples * columns_, 0);
}

void series_bands::add_at(std::size_t i, std::uint64_t x) {
  sum_[i] += x;
  // x^2 as two 64-bit words, added with carries: exact for any count a run can hold.
  const auto sq = static_cast<u128>(x) * x;
  const auto lo = static_cast<std::uint64_t>(sq);
  sq_lo_[i] += lo;
  sq_hi_[i] += static_cast<std::uint64_t>(sq >> 64) + (sq_lo_[i] < lo ? 1 : 0);
}

void series_bands::add(const room_result& r) {
  ++replications_;
  const auto& s = r.samples;
  std::size_t n = s.size();
  // The final sample at the end time: off the grid unless it fell on it.
  if (n >= 2 && s[n - 1].t_s - s[n - 2].t_s < (s[1].t_s - s[0].t_s) * (1 - 1e-9)) --n;
  grow(n);
  for (std::size_t k = 0; k < n; ++k) {
    // Grid times are the same in every replication; min keeps the order out of it anyway.
    t_s_[k] = std::isnan(t_s_[k]) ? s[k].t_s : std::min(t_s_[k], s[k].t_s);
    const std::size_t base = k * columns_;
    add_at(base, s[k].length);
    for (std::size_t c = 0; c < s[k].by_class.size() && c + 2 < columns_; ++c)
      add_at(base + 1 + c, s[k].by_class[c]);
    add_at(base + columns_ - 1, s[k].released_in_interval);
  }
}

void series_bands::merge(const series_bands& o) {
  replications_ += o.replications_;
  grow(o.t_s_.size());
  for (std::size_t k = 0; k < o.t_s_.size(); ++k)
    if (!std::isnan(o.t_s_[k]))
      t_s_[k] = std::isnan(t_s_[k]) ? o.t_s_[k] : std::min(t_s_[k], o.t_s_[k]);
  for (std::size_t i = 0; i < o.sum_.size(); ++i) {
    sum_[i] += o.sum_[i];
    sq_lo_[i] += o.sq_lo_[i];
    sq_hi_[i] += o.sq_hi_[i] + (sq_lo_[i] < o.sq_lo_[i] ? 1 : 0);
  }
}

sim::interval series_bands::at(std::size_t k, std::size_t column, double level) const {
  const std::size_t i = k * columns_ + column;
  const std::uint64_t n = replications_;
  const long double mean = static_cast<long double>(sum_[i]) / static_cast<long double>(n);
  if (n < 2) return {static_cast<double>(mean), std::numeric_limits<double>::infinity()};
  // n S2 - S1^2 in integers when it fits (it does for queues below 2^32 and 10^5
  // replications): no cancellation; otherwise in long double.
  const u128 s1 = sum_[i];
  const u128 s2 = (static_cast<u128>(sq_hi_[i]) << 64) | sq_lo_[i];
  long double var;
  if (s2 <= ~u128{0} / n) {
    const u128 numer = n * s2 - s1 * s1;  // >= 0 (Cauchy-Schwarz)
    var = static_cast<long double>(numer) /
          (static_cast<long double>(n) * static_cast<long double>(n - 1));
  } else {
    var = std::max<long double>(
        0, (static_cast<long double>(s2) - static_cast<long double>(s1) * mean) /
               static_cast<long double>(n - 1));
  }
  const double t = sim::student_t_quantile(0.5 + level / 2, static_cast<double>(n - 1));
  return {static_cast<double>(mean),
          t * static_cast<double>(std::sqrt(var / static_cast<long double>(n)))};
}

bool series_bands::restore(std::uint64_t replications, std::vector<double> t_s,
                           std::vector<std::uint64_t> sum, std::vector<std::uint64_t> sq_hi,
                           std::vector<std::uint64_t> sq_lo) {
  const std::size_t cells = t_s.size() * columns_;
  if (sum.size() != cells || sq_hi.size() != cells || sq_lo.size() != cells) return false;
  replications_ = replications;
  t_s_ = std::move(t_s);
  sum_ = std::move(sum);
  sq_hi_ = std::move(sq_hi);
  sq_lo_ = std::move(sq_lo);
  return true;
}

}  // namespace waitroom::models
