#pragma once
// An estimate with its interval for a table cell, "-" when there is no data (a class nobody
// of which was released: the estimate is NaN), never "nan [nan, nan]".
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace waitroom::reports {

inline std::string interval_text(double mean, double lo, double hi) {
  if (std::isnan(mean)) return "-";
  return fmt::format("{:.4g} [{:.4g}, {:.4g}]", mean, lo, hi);
}

// A number for a CSV cell: empty when there is no data.
inline std::string csv_number(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

}  // namespace waitroom::reports
