#pragma once
// Our own distributions (never std::*_distribution, whose output differs between
// standard libraries). A distribution is a small value type dispatched by a switch.
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/random.hpp"

namespace waitroom::sim {

enum class dist_kind {
  deterministic,
  exponential,
  uniform,
  normal,
  lognormal,
  gamma,
  erlang,
  empirical,
  weibull
};

struct distribution {
  dist_kind kind = dist_kind::deterministic;
  // deterministic: a = value; exponential: a = mean; uniform: [a, b);
  // normal: a = mean, b = stddev (truncated at 0 when used for durations by the caller);
  // lognormal: a = mu, b = sigma of the underlying normal; gamma: a = shape, b = scale;
  // erlang: a = k (integer), b = mean of the whole; empirical: samples, drawn uniformly;
  // weibull: a = shape, b = scale.
  double a = 0;
  double b = 0;
  std::vector<double> samples;

  static distribution constant(double v) { return {dist_kind::deterministic, v, 0, {}}; }
  static distribution exponential(double mean) { return {dist_kind::exponential, mean, 0, {}}; }
  static distribution uniform(double lo, double hi) { return {dist_kind::uniform, lo, hi, {}}; }
  static distribution normal(double mean, double sd) { return {dist_kind::normal, mean, sd, {}}; }
  static distribution lognormal(double mu, double sigma) {
    return {dist_kind::lognormal, mu, sigma, {}};
  }
  static distribution gamma(double shape, double scale) {
    return {dist_kind::gamma, shape, scale, {}};
  }
  static distribution erlang(int k, double mean) {
    return {dist_kind::erlang, static_cast<double>(k), mean, {}};
  }
  static distribution weibull(double shape, double scale) {
    return {dist_kind::weibull, shape, scale, {}};
  }
  static distribution empirical(std::vector<double> s) {
    return {dist_kind::empirical, 0, 0, std::move(s)};
  }

  // The exponential inline (it is drawn on most events); the rest out of line.
  double sample(rng& r) const {
    if (kind == dist_kind::exponential) return -a * std::log(r.uniform_open0());
    return sample_other(r);
  }
  double mean() const;
  double second_moment() const;  // E[X^2], used by the analytic checks
  // The distribution of factor x X (factor > 0): every duration stretched alike.
  distribution scaled(double factor) const;

 private:
  double sample_other(rng& r) const;
};

// Each kind's name in scenarios, in the order a reader lists them; to_string uses it too.
inline constexpr std::array<std::pair<dist_kind, std::string_view>, 9> dist_kind_names{
    {{dist_kind::deterministic, "deterministic"},
     {dist_kind::exponential, "exponential"},
     {dist_kind::uniform, "uniform"},
     {dist_kind::normal, "normal"},
     {dist_kind::lognormal, "lognormal"},
     {dist_kind::gamma, "gamma"},
     {dist_kind::erlang, "erlang"},
     {dist_kind::empirical, "empirical"},
     {dist_kind::weibull, "weibull"}}};

const char* to_string(dist_kind k);

// Exposed for tests and for distributions built on them.
double sample_standard_normal(rng& r);
double sample_gamma(rng& r, double shape);

}  // namespace waitroom::sim
