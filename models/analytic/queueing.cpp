#include "models/analytic/queueing.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace waitroom::models {

double erlang_c(int c, double a) {
  double term = 1.0, sum = 0.0;  // term = a^k / k!
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  double last = term * c / (c - a);  // a^c / c! * 1 / (1 - a / c)
  return last / (sum + last);
}

double mmc_mean_wait(int c, double lambda, double mean_service) {
  double a = lambda * mean_service;
  return erlang_c(c, a) * mean_service / (c - a);
}

double mg1_mean_wait(double lambda, double service_mean, double service_second_moment) {
  return lambda * service_second_moment / (2.0 * (1.0 - lambda * service_mean));
}

std::vector<double> cobham_mean_waits(const std::vector<double>& lambdas, double service_mean,
                                      double service_second_moment) {
  double w0 = 0;
  for (double l : lambdas) w0 += l * service_second_moment / 2.0;
  std::vector<double> out;
  double sigma_prev = 0;
  for (double l : lambdas) {
    double sigma = sigma_prev + l * service_mean;
    out.push_back(w0 / ((1.0 - sigma_prev) * (1.0 - sigma)));
    sigma_prev = sigma;
  }
  return out;
}

estimate_or_reason analytic_for(const scenario& s) {
  if (s.arrivals.kind != arrival_kind::poisson || s.arrivals.backlog_users > 0)
    return {std::nullopt, "arrivals are not a plain Poisson process (closed forms need one)"};
  if (s.release.mode != release_mode::concurrency)
    return {std::nullopt,
            "tick release has no closed form here (its Markov chain is not implemented yet)"};
  if (s.lists.size() > 1 || s.admission || s.returns || s.compensation)
    return {std::nullopt, "several lists, admission caps, returns or compensation"};
  const double lambda = s.arrivals.rate_per_s;
  const double es = s.release.session.mean(), es2 = s.release.session.second_moment();
  const int c = static_cast<int>(s.release.slots);
  if (lambda * es >= c) return {std::nullopt, "the load is at or above capacity: no steady state"};
  const bool exponential = s.release.session.kind == sim::dist_kind::exponential;
  analytic_estimate e;
  if (s.policy.order == ordering::level && c == 1) {
    // Classes grouped by level, lowest first; a class's wait is its level's.
    std::map<double, std::vector<std::size_t>> by_level;
    for (std::size_t k = 0; k < s.classes.size(); ++k) by_level[s.classes[k].level].push_back(k);
    std::vector<double> lambdas;
    for (const auto& [lvl, ks] : by_level) {
      double l = 0;
      for (auto k : ks) l += lambda * s.classes[k].share;
      lambdas.push_back(l);
    }
    auto w = cobham_mean_waits(lambdas, es, es2);
    e.model = fmt::format("M/G/1 non-preemptive priority, {} levels (Cobham)", lambdas.size());
    e.mean_wait_s.resize(s.classes.size());
    std::size_t i = 0;
    for (const auto& [lvl, ks] : by_level) {
      for (auto k : ks) e.mean_wait_s[k] = w[i];
      ++i;
    }
    e.p_wait = lambda * es;
    return {e, ""};
  }
  // FIFO, or an offset/level policy that cannot reorder: with one class, or equal offsets
  // and levels, every policy is FIFO.
  bool one_order = s.policy.order == ordering::fifo;
  if (!one_order) {
    one_order = true;
    for (const auto& k : s.classes)
      one_order =
          one_order && k.offset_ms == s.classes[0].offset_ms && k.level == s.classes[0].level;
  }
  if (!one_order)
    return {std::nullopt, "class priorities with several servers have no closed form here"};
  if (exponential) {
    e.model = fmt::format("M/M/{} (Erlang C)", c);
    e.mean_wait_s.assign(s.classes.size(), mmc_mean_wait(c, lambda, es));
    e.p_wait = erlang_c(c, lambda * es);
    return {e, ""};
  }
  if (c == 1) {
    e.model = "M/G/1 (Pollaczek-Khinchine)";
    e.mean_wait_s.assign(s.classes.size(), mg1_mean_wait(lambda, es, es2));
    e.p_wait = lambda * es;
    return {e, ""};
  }
  return {std::nullopt, "M/G/c with c > 1 has no exact closed form"};
}

}  // namespace waitroom::models
