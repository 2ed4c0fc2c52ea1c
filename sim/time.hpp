#pragma once
// Simulated time: an integer count of nanoseconds, so event order never depends on
// floating-point rounding.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace waitroom::sim {

class sim_time {
 public:
  constexpr sim_time() = default;
  static constexpr sim_time from_ns(std::int64_t ns) { return sim_time{ns}; }
  // Rounds to the nearest nanosecond. A time beyond the clock (about 292 years; a sampled
  // duration can exceed what was validated) saturates at max(), which the run loop reports
  // as an error when it is reached, instead of wrapping around to a negative time.
  static constexpr sim_time from_seconds(double s) { return sim_time{round_ns(s * 1e9)}; }
  static constexpr sim_time from_ms(double ms) { return sim_time{round_ns(ms * 1e6)}; }
  static constexpr sim_time max() { return sim_time{std::numeric_limits<std::int64_t>::max()}; }

  constexpr std::int64_t ns() const { return ns_; }
  constexpr double seconds() const {
    return static_cast<double>(ns_) / 1e9;
  }  // exact for whole seconds

  constexpr auto operator<=>(const sim_time&) const = default;
  // Saturating: a sum past the clock's range is max() (see from_seconds).
  constexpr sim_time operator+(sim_time o) const { return sim_time{add_ns(ns_, o.ns_)}; }
  constexpr sim_time operator-(sim_time o) const { return sim_time{ns_ - o.ns_}; }
  constexpr sim_time& operator+=(sim_time o) {
    ns_ = add_ns(ns_, o.ns_);
    return *this;
  }

  // Nanosecond arithmetic that saturates at the clock's ends instead of overflowing.
  static constexpr std::int64_t add_ns(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
      return b > 0 ? std::numeric_limits<std::int64_t>::max()
                   : std::numeric_limits<std::int64_t>::min();
    return r;
  }
  static constexpr std::int64_t mul_ns(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
      return (a < 0) == (b < 0) ? std::numeric_limits<std::int64_t>::max()
                                : std::numeric_limits<std::int64_t>::min();
    return r;
  }

  // A count of nanoseconds rounded as std::llround rounds it (halves away from zero),
  // saturating at the clock's ends (NaN: max()). Inline because llround was a libm call on
  // every scheduled event. Below 2^52 in magnitude (about 52 days of nanoseconds: every
  // sampled duration in practice) adding and removing 2^52 rounds to the nearest integer,
  // ties to even, exactly; a tie that went to even towards zero then moves one away from
  // zero. That chain is shorter than truncating, converting back and comparing the
  // fraction, and the event loop waits on it (docs/perf.md, "The rounding of sim_time").
  static constexpr std::int64_t round_ns(double x) {
    constexpr double two52 = 4503599627370496.0;
    if (x < two52 && x > -two52) {
      const double m = x < 0 ? -two52 : two52;
      const double t = (x + m) - m;
      const double d = x - t;  // exact: -0.5 <= d <= 0.5
      return static_cast<std::int64_t>(t) + static_cast<std::int64_t>(d == 0.5 && x > 0) -
             static_cast<std::int64_t>(d == -0.5 && x < 0);
    }
    constexpr double limit = 9.2e18;  // just inside the int64 range
    if (!(x < limit)) return std::numeric_limits<std::int64_t>::max();  // NaN too
    if (x <= -limit) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(x);  // |x| >= 2^52: already a whole number
  }

 private:
  constexpr explicit sim_time(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

// Largest time we accept from user input (about 292 years would overflow; 100 years is ample).
inline constexpr double max_input_seconds = 100.0 * 365.0 * 86400.0;
// The clock's range in seconds (int64 nanoseconds), for messages.
inline constexpr double clock_range_seconds = 9.2e9;

}  // namespace waitroom::sim
