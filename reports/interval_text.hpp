#pragma once
// Numbers in the tables for people, one rule for every command:
// - a table shows all its times in one unit, chosen from the largest time it shows (s below
//   600 s, min below 600 min, else h) and named in its header;
// - an estimate with its interval is "estimate ± half-width", both to the decimals that give
//   the larger of the two four significant figures (at most 6 decimals), never "-0.000";
// - no data (a class nobody of which was released: the estimate is NaN) is "-", never
//   "nan ± nan".
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "models/spec/sla_spec.hpp"
#include "sim/confidence.hpp"

namespace waitroom::reports {

struct time_unit {
  std::string_view name;  // "s", "min", "h"
  double seconds;         // one unit in seconds
};

// The unit for a table whose largest time (in absolute value, seconds) is max_abs_s.
inline time_unit time_unit_for(double max_abs_s) {
  const double m = std::isfinite(max_abs_s) ? std::fabs(max_abs_s) : 0.0;
  if (m < 600.0) return {"s", 1.0};
  if (m < 600.0 * 60.0) return {"min", 60.0};
  return {"h", 3600.0};
}

// Decimals that give `magnitude` four significant figures (none above 1000, at most 6).
inline int significant_decimals(double magnitude) {
  const double m = std::fabs(magnitude);
  if (!std::isfinite(m) || m == 0.0) return 0;
  return std::clamp(3 - static_cast<int>(std::floor(std::log10(m))), 0, 6);
}

// v to `decimals` decimals; a value that rounds to zero has no sign ("0.000", never "-0.000").
inline std::string fixed_text(double v, int decimals) {
  std::string t = fmt::format("{:.{}f}", v, decimals);
  if (!t.empty() && t.front() == '-' && t.find_first_not_of("-0.") == std::string::npos)
    t.erase(0, 1);
  return t;
}

// "estimate ± half-width" (both already in the table's unit), "-" without an estimate.
inline std::string interval_text(double estimate, double half_width) {
  if (std::isnan(estimate)) return "-";
  // One replication gives no interval (an infinite half-width).
  if (!std::isfinite(half_width))
    return fixed_text(estimate, significant_decimals(estimate)) + " ± inf";
  const double h = std::fabs(half_width);
  const double larger = std::max(std::fabs(estimate), h);
  // Noise around zero (a difference of sums in floating point) reads as the zero it is.
  if (larger < 5e-7) return "0 ± 0";
  const int d = significant_decimals(larger);
  return fixed_text(estimate, d) + " ± " + fixed_text(h, d);
}

// An interval in seconds (or any unit), shown in `unit_seconds` units.
inline std::string interval_text(const sim::interval& iv, double unit_seconds = 1.0) {
  return interval_text(iv.mean / unit_seconds, iv.half_width / unit_seconds);
}

// Metrics measured in seconds: shown in the table's time unit.
inline bool is_time_metric(models::sla_metric m) {
  using models::sla_metric;
  switch (m) {
    case sla_metric::mean_wait_s:
    case sla_metric::p50_wait_s:
    case sla_metric::p90_wait_s:
    case sla_metric::p95_wait_s:
    case sla_metric::p99_wait_s:
    case sla_metric::p999_wait_s:
    case sla_metric::max_wait_s:
    case sla_metric::eta_mae_s:
    case sla_metric::backend_p95_rt_s:
      return true;
    default:
      return false;
  }
}

// The unit of a metric that is not a time ("" for a share or a rate of errors).
inline std::string_view plain_unit(models::sla_metric m) {
  if (m == models::sla_metric::redis_peak_per_s) return "/s";
  if (m == models::sla_metric::redis_memory_mb) return "MB";
  return "";
}

// A number for a CSV cell: empty when there is no data.
inline std::string csv_number(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

}  // namespace waitroom::reports
