#pragma once
// Survival times from a log, fitted with censoring: a user who gave up after t seconds is an
// event at t; one released (or still waiting at the log's end) after t is censored at t — their
// patience is only known to exceed t. The likelihood is the product of f(t) over events and
// S(t) over censored users; ignoring censoring biases patience short (most users are released).
// Families: exponential, Weibull, lognormal, chosen by AIC. Distributions from Boost.Math, the
// maximisation by NLopt (BOBYQA), intervals by profile likelihood (95%: the values where twice
// the drop in log-likelihood reaches the chi-square(1) quantile 3.841), roots by Boost's TOMS 748.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "sim/distribution.hpp"

namespace waitroom::models::fit {

struct observation {
  double t_s = 0;      // the wait observed, seconds (> 0)
  bool event = false;  // true: gave up at t_s; false: censored at t_s
};

enum class family { exponential, weibull, lognormal };
const char* name_of(family f);

struct parameter {
  std::string name;  // rate_per_s; shape, scale_s; mu, sigma (of log seconds)
  double value = 0;
  double lo = 0, hi = 0;  // the 95% profile-likelihood interval
};

struct survival_fit {
  family kind = family::exponential;
  std::vector<parameter> parameters;
  double log_likelihood = 0;
  double aic = 0;
  std::size_t n = 0, events = 0;
  // The largest distance between the Kaplan-Meier curve and the fitted survival, over the
  // event times (each side of a step): Kolmogorov-Smirnov's statistic under censoring.
  double ks_distance = 0;
  double survival(double t_s) const;  // the fitted S(t)
  double mean_s() const;
  sim::distribution as_distribution() const;  // for a scenario (write_distribution)
};

struct km_point {
  double t_s = 0;
  double survival = 1;    // just after t_s
  double lo = 0, hi = 1;  // 95% pointwise, Greenwood's variance on the log(-log) scale
};

// Kaplan-Meier's estimate at each distinct event time.
std::vector<km_point> kaplan_meier(std::span<const observation> obs);

// The maximum-likelihood fit of one family. Throws std::invalid_argument without an event or
// with a time not above 0.
survival_fit fit_survival(std::span<const observation> obs, family f);
// Every family that can be fitted, best (lowest AIC) first: Weibull and lognormal need three
// give-ups at two or more waits; a fit that does not converge is left out (empty: none).
std::vector<survival_fit> fit_families(std::span<const observation> obs);

}  // namespace waitroom::models::fit
