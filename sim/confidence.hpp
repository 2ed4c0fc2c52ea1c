#pragma once
// Student-t quantiles and t-based confidence intervals for means of independent
// replications (or batch means).
#include <vector>

#include "sim/moments.hpp"

namespace waitroom::sim {

// Regularised incomplete beta function I_x(a, b).
double incomplete_beta(double a, double b, double x);
// P(T <= t) for Student's t with df degrees of freedom.
double student_t_cdf(double t, double df);
// The p-quantile of Student's t (0 < p < 1), by bisection on the CDF.
double student_t_quantile(double p, double df);

struct interval {
  double mean;
  double half_width;
  double lo() const { return mean - half_width; }
  double hi() const { return mean + half_width; }
  bool contains(double x) const { return x >= lo() && x <= hi(); }
};

// Two-sided t interval at `level` (e.g. 0.95) for the mean of independent values.
interval mean_interval(const std::vector<double>& values, double level);
// The same from running moments of the values (a single value: an infinite half-width).
interval mean_interval(const running_moments& m, double level);

}  // namespace waitroom::sim
