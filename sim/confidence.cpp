#include "sim/confidence.hpp"

#include <cmath>
#include <limits>

namespace waitroom::sim {

namespace {
// Continued fraction for the incomplete beta (modified Lentz's method).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < 1e-15) break;
  }
  return h;
}
}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  double lbeta = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
  double front = std::exp(lbeta + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, double df) {
  double x = df / (df + t * t);
  double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, x);
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  double lo = -1e3, hi = 1e3;
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    double mid = 0.5 * (lo + hi);
    if (student_t_cdf(mid, df) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

interval mean_interval(const std::vector<double>& values, double level) {
  // Welford's updates in order, the same arithmetic as a stream of replications merged as
  // they finish (run --replications keeps no replication's values): the same bits either way.
  running_moments m;
  for (double v : values) m.add(v);
  return mean_interval(m, level);
}

interval mean_interval(const running_moments& m, double level) {
  if (m.count() == 0) return {0.0, 0.0};
  if (m.count() < 2) return {m.mean(), std::numeric_limits<double>::infinity()};
  const double n = static_cast<double>(m.count());
  return {m.mean(), student_t_quantile(0.5 + 0.5 * level, n - 1.0) * m.stddev() / std::sqrt(n)};
}

}  // namespace waitroom::sim
