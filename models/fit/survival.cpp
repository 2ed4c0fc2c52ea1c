#include "models/fit/survival.hpp"

#include <nlopt.hpp>

#include <algorithm>
#include <array>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/weibull.hpp>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <stdexcept>

namespace waitroom::models::fit {

namespace {

// The fit works on unconstrained coordinates u: log rate; log shape, log scale; mu, log sigma.
constexpr std::size_t max_dim = 2;
using coords = std::array<double, max_dim>;

std::size_t dim_of(family f) {
  return f == family::exponential ? 1 : 2;
}

// log S(t) of the lognormal, kept finite far in the tail (Mills' ratio where erfc underflows).
double lognormal_log_survival(double z) {
  const double s = boost::math::cdf(boost::math::complement(boost::math::normal(), z));
  if (s > 0) return std::log(s);
  return -0.5 * z * z - std::log(z * std::sqrt(2 * std::numbers::pi));
}

double log_likelihood(family f, const coords& u, std::span<const observation> obs) {
  double ll = 0;
  switch (f) {
    case family::exponential: {
      const double rate = std::exp(u[0]);
      for (const auto& o : obs) ll += (o.event ? u[0] : 0.0) - rate * o.t_s;
      return ll;
    }
    case family::weibull: {
      const double k = std::exp(u[0]), log_scale = u[1];
      for (const auto& o : obs) {
        const double z = std::log(o.t_s) - log_scale;  // log(t / scale)
        const double h = std::exp(k * z);              // (t / scale)^k
        ll += (o.event ? u[0] - log_scale + (k - 1) * z : 0.0) - h;
      }
      return ll;
    }
    case family::lognormal: {
      const double mu = u[0], sigma = std::exp(u[1]);
      for (const auto& o : obs) {
        const double lt = std::log(o.t_s);
        const double z = (lt - mu) / sigma;
        ll += o.event ? -lt - u[1] - 0.5 * std::log(2 * std::numbers::pi) - 0.5 * z * z
                      : lognormal_log_survival(z);
      }
      return ll;
    }
  }
  return -std::numeric_limits<double>::infinity();
}

// Where the maximisation starts: the exponential's closed form, or the moments of log t.
coords start(family f, std::span<const observation> obs) {
  double total = 0, events = 0, sum_log = 0, sum_log2 = 0;
  for (const auto& o : obs) {
    total += o.t_s;
    events += o.event ? 1 : 0;
    sum_log += std::log(o.t_s);
    sum_log2 += std::log(o.t_s) * std::log(o.t_s);
  }
  const double n = static_cast<double>(obs.size());
  const double mean_log = sum_log / n;
  const double sd_log = std::sqrt(std::max(sum_log2 / n - mean_log * mean_log, 1e-6));
  switch (f) {
    case family::exponential:
      return {std::log(events / total), 0};
    case family::weibull:
      return {0, std::log(total / events)};
    case family::lognormal:
      return {mean_log + std::log(n / events) * sd_log, std::log(sd_log)};
  }
  return {};
}

struct problem {
  family f;
  std::span<const observation> obs;
  int fixed = -1;  // a coordinate held at fixed_value (the profile), or -1
  double fixed_value = 0;
};

double objective(const std::vector<double>& x, std::vector<double>&, void* data) {
  const auto& p = *static_cast<const problem*>(data);  // NLopt passes it untyped
  coords u{};
  std::size_t k = 0;
  for (std::size_t j = 0; j < dim_of(p.f); ++j)
    u[j] = static_cast<int>(j) == p.fixed ? p.fixed_value : x[k++];
  const double ll = log_likelihood(p.f, u, p.obs);
  return std::isfinite(ll) ? ll : -1e300;
}

// The maximum over the free coordinates (all, or all but the fixed one), from u.
double maximise(problem p, coords& u) {
  std::vector<double> x;
  for (std::size_t j = 0; j < dim_of(p.f); ++j)
    if (static_cast<int>(j) != p.fixed) x.push_back(u[j]);
  double best = 0;
  if (x.size() == 1) {  // one free coordinate: Brent's method around where it starts
    std::vector<double> grad;
    const auto minus = [&](double v) {
      std::vector<double> one{v};
      return -objective(one, grad, &p);
    };
    const auto [at, value] = boost::math::tools::brent_find_minima(minus, x[0] - 20, x[0] + 20, 52);
    x[0] = at;
    best = -value;
  } else if (!x.empty()) {
    nlopt::opt opt(nlopt::LN_BOBYQA, static_cast<unsigned>(x.size()));
    opt.set_max_objective(objective, &p);
    opt.set_lower_bounds(std::vector<double>(x.size(), -60.0));
    opt.set_upper_bounds(std::vector<double>(x.size(), 60.0));
    opt.set_initial_step(0.5);
    opt.set_xtol_abs(1e-10);
    opt.set_maxeval(20000);
    opt.optimize(x, best);
  } else {
    std::vector<double> grad;
    return objective(x, grad, &p);
  }
  std::size_t k = 0;
  for (std::size_t j = 0; j < dim_of(p.f); ++j)
    if (static_cast<int>(j) != p.fixed) u[j] = x[k++];
  return best;
}

// The 95% profile-likelihood interval of coordinate j (in u), stepping out from the maximum.
std::array<double, 2> profile_interval(family f, std::span<const observation> obs,
                                       const coords& best, double best_ll, std::size_t j) {
  const double cut = boost::math::quantile(boost::math::chi_squared(1), 0.95) / 2;
  std::array<double, 2> out{};
  for (int side = 0; side < 2; ++side) {
    const double dir = side == 0 ? -1.0 : 1.0;
    coords u = best;
    const auto drop = [&](double v) {
      problem p{f, obs, static_cast<int>(j), v};
      return best_ll - maximise(p, u) - cut;
    };
    double near = best[j], step = 0.05, far = best[j] + dir * step;
    while (drop(far) < 0) {
      near = far;
      step *= 2;
      far = best[j] + dir * step;
      if (step > 64) throw std::runtime_error("fit: a likelihood that does not fall off");
    }
    std::uintmax_t iterations = 100;
    const auto [a, b] = boost::math::tools::toms748_solve(
        drop, std::min(near, far), std::max(near, far),
        boost::math::tools::eps_tolerance<double>(40), iterations);
    out[side] = (a + b) / 2;
  }
  return out;
}

double natural(family f, std::size_t j, double u) {
  return f == family::lognormal && j == 0 ? u : std::exp(u);
}

const char* parameter_name(family f, std::size_t j) {
  switch (f) {
    case family::exponential:
      return "rate_per_s";
    case family::weibull:
      return j == 0 ? "shape" : "scale_s";
    case family::lognormal:
      return j == 0 ? "mu" : "sigma";
  }
  return "";
}

}  // namespace

const char* name_of(family f) {
  switch (f) {
    case family::exponential:
      return "exponential";
    case family::weibull:
      return "weibull";
    case family::lognormal:
      return "lognormal";
  }
  return "";
}

double survival_fit::survival(double t_s) const {
  if (t_s <= 0) return 1;
  switch (kind) {
    case family::exponential:
      return boost::math::cdf(
          boost::math::complement(boost::math::exponential(parameters[0].value), t_s));
    case family::weibull:
      return boost::math::cdf(boost::math::complement(
          boost::math::weibull(parameters[0].value, parameters[1].value), t_s));
    case family::lognormal:
      return boost::math::cdf(boost::math::complement(
          boost::math::lognormal(parameters[0].value, parameters[1].value), t_s));
  }
  return 1;
}

sim::distribution survival_fit::as_distribution() const {
  switch (kind) {
    case family::exponential:
      return sim::distribution::exponential(1 / parameters[0].value);
    case family::weibull:
      return sim::distribution::weibull(parameters[0].value, parameters[1].value);
    case family::lognormal:
      return sim::distribution::lognormal(parameters[0].value, parameters[1].value);
  }
  return sim::distribution::exponential(1 / parameters[0].value);
}

double survival_fit::mean_s() const {
  switch (kind) {
    case family::exponential:
      return boost::math::mean(boost::math::exponential(parameters[0].value));
    case family::weibull:
      return boost::math::mean(boost::math::weibull(parameters[0].value, parameters[1].value));
    case family::lognormal:
      return boost::math::mean(boost::math::lognormal(parameters[0].value, parameters[1].value));
  }
  return 0;
}

std::vector<km_point> kaplan_meier(std::span<const observation> obs) {
  // Per distinct time: events and the users still at risk just before it.
  std::map<double, std::pair<double, double>> at;  // t -> (events, leaving the risk set)
  for (const auto& o : obs) {
    auto& [d, gone] = at[o.t_s];
    d += o.event ? 1 : 0;
    gone += 1;
  }
  std::vector<km_point> out;
  double at_risk = static_cast<double>(obs.size()), s = 1, greenwood = 0;
  const double z = boost::math::quantile(boost::math::normal(), 0.975);
  for (const auto& [t, counts] : at) {
    const auto [d, gone] = counts;
    if (d > 0) {
      s *= 1 - d / at_risk;
      if (at_risk > d) greenwood += d / (at_risk * (at_risk - d));
      km_point p{t, s, 0, 1};
      if (s > 0 && s < 1) {  // log(-log S) has the better coverage near 0 and 1
        const double se = std::sqrt(greenwood) / std::abs(std::log(s));
        p.lo = std::pow(s, std::exp(z * se));
        p.hi = std::pow(s, std::exp(-z * se));
      } else {
        p.lo = p.hi = s;
      }
      out.push_back(p);
    }
    at_risk -= gone;
  }
  return out;
}

survival_fit fit_survival(std::span<const observation> obs, family f) {
  std::size_t events = 0;
  for (const auto& o : obs) {
    if (!(o.t_s > 0) || !std::isfinite(o.t_s))
      throw std::invalid_argument("fit: a wait not above 0 seconds");
    events += o.event ? 1 : 0;
  }
  if (events == 0) throw std::invalid_argument("fit: no give-up to fit a patience to");
  coords u = start(f, obs);
  const double ll = maximise({f, obs}, u);
  survival_fit out;
  out.kind = f;
  out.n = obs.size();
  out.events = events;
  out.log_likelihood = ll;
  out.aic = 2 * static_cast<double>(dim_of(f)) - 2 * ll;
  for (std::size_t j = 0; j < dim_of(f); ++j) {
    const auto [lo, hi] = profile_interval(f, obs, u, ll, j);
    out.parameters.push_back(
        {parameter_name(f, j), natural(f, j, u[j]), natural(f, j, lo), natural(f, j, hi)});
  }
  double before = 1;  // each side of a step: the curve just before t is the previous point's
  for (const auto& p : kaplan_meier(obs)) {
    const double fitted = out.survival(p.t_s);
    out.ks_distance =
        std::max({out.ks_distance, std::abs(p.survival - fitted), std::abs(before - fitted)});
    before = p.survival;
  }
  return out;
}

std::vector<survival_fit> fit_families(std::span<const observation> obs) {
  // Two parameters need at least three give-ups at two different waits (one wait fits a
  // point mass exactly); a family whose likelihood the optimiser or the interval's root
  // finder cannot settle is left out rather than reported half-fitted.
  std::set<double> event_times;
  for (const auto& o : obs)
    if (o.event) event_times.insert(o.t_s);
  std::size_t events = 0;
  for (const auto& o : obs) events += o.event;
  std::vector<survival_fit> out;
  for (family f : {family::exponential, family::weibull, family::lognormal}) {
    if (f != family::exponential && (events < 3 || event_times.size() < 2)) continue;
    try {
      out.push_back(fit_survival(obs, f));
    } catch (const std::exception&) {  // nlopt's and Boost.Math's failures alike
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const survival_fit& a, const survival_fit& b) { return a.aic < b.aic; });
  return out;
}

}  // namespace waitroom::models::fit
