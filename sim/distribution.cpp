#include "sim/distribution.hpp"

#include <cmath>

namespace waitroom::sim {

double sample_standard_normal(rng& r) {
  // Marsaglia's polar method: only log and sqrt, no trigonometry.
  for (;;) {
    double u = 2.0 * r.uniform01() - 1.0;
    double v = 2.0 * r.uniform01() - 1.0;
    double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double sample_gamma(rng& r, double shape) {
  // Marsaglia and Tsang (2000); shape < 1 by the boost X * U^(1/shape).
  if (shape < 1.0) {
    double u = r.uniform_open0();
    return sample_gamma(r, shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = sample_standard_normal(r);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    double u = r.uniform_open0();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

double distribution::sample_other(rng& r) const {
  switch (kind) {
    case dist_kind::deterministic:
      return a;
    case dist_kind::exponential:
      return -a * std::log(r.uniform_open0());
    case dist_kind::uniform:
      return a + (b - a) * r.uniform01();
    case dist_kind::normal:
      return a + b * sample_standard_normal(r);
    case dist_kind::lognormal:
      return std::exp(a + b * sample_standard_normal(r));
    case dist_kind::gamma:
      return b * sample_gamma(r, a);
    case dist_kind::erlang: {
      // Product of uniforms: exact Erlang with one log per draw.
      auto k = static_cast<int>(a);
      double prod = 1.0;
      for (int i = 0; i < k; ++i) prod *= r.uniform_open0();
      return -(b / a) * std::log(prod);
    }
    case dist_kind::empirical:
      return samples[r.below(samples.size())];
    case dist_kind::weibull:  // by inversion: S(x) = exp(-(x / b)^a)
      return b * std::pow(-std::log(r.uniform_open0()), 1.0 / a);
  }
  return 0.0;
}

distribution distribution::scaled(double factor) const {
  distribution d = *this;
  switch (kind) {
    case dist_kind::deterministic:
    case dist_kind::exponential:
    case dist_kind::uniform:
    case dist_kind::normal:
      d.a *= factor;
      d.b *= factor;
      break;
    case dist_kind::lognormal:  // log(f X) = log f + log X
      d.a += std::log(factor);
      break;
    case dist_kind::gamma:
    case dist_kind::erlang:
    case dist_kind::weibull:
      d.b *= factor;  // the scale (Erlang: the mean)
      break;
    case dist_kind::empirical:
      for (double& x : d.samples) x *= factor;
      break;
  }
  return d;
}

double distribution::mean() const {
  switch (kind) {
    case dist_kind::deterministic:
    case dist_kind::exponential:
    case dist_kind::normal:
      return a;
    case dist_kind::uniform:
      return 0.5 * (a + b);
    case dist_kind::lognormal:
      return std::exp(a + 0.5 * b * b);
    case dist_kind::gamma:
      return a * b;
    case dist_kind::erlang:
      return b;
    case dist_kind::weibull:
      return b * std::tgamma(1.0 + 1.0 / a);
    case dist_kind::empirical: {
      double s = 0;
      for (double x : samples) s += x;
      return samples.empty() ? 0.0 : s / static_cast<double>(samples.size());
    }
  }
  return 0.0;
}

double distribution::second_moment() const {
  switch (kind) {
    case dist_kind::deterministic:
      return a * a;
    case dist_kind::exponential:
      return 2.0 * a * a;
    case dist_kind::uniform:
      return (a * a + a * b + b * b) / 3.0;
    case dist_kind::normal:
      return a * a + b * b;
    case dist_kind::lognormal:
      return std::exp(2.0 * a + 2.0 * b * b);
    case dist_kind::gamma:
      return a * (a + 1.0) * b * b;
    case dist_kind::erlang:
      return b * b * (a + 1.0) / a;
    case dist_kind::weibull:
      return b * b * std::tgamma(1.0 + 2.0 / a);
    case dist_kind::empirical: {
      double s = 0;
      for (double x : samples) s += x * x;
      return samples.empty() ? 0.0 : s / static_cast<double>(samples.size());
    }
  }
  return 0.0;
}

const char* to_string(dist_kind k) {
  for (const auto& [kind, name] : dist_kind_names)
    if (kind == k) return name.data();
  return "unknown";
}

}  // namespace waitroom::sim
