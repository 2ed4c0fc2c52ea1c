#include "models/analytic/queueing.hpp"

#include <fmt/format.h>
#include <Eigen/Sparse>

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

erlang_a_result erlang_a(int c, double lambda, double mean_service, double mean_patience) {
  const double mu = 1.0 / mean_service, theta = 1.0 / mean_patience;
  std::vector<double> p{1.0};
  double total = 1.0;
  for (int n = 0; n < 10'000'000; ++n) {
    double down = std::min(n + 1, c) * mu + std::max(n + 1 - c, 0) * theta;
    p.push_back(p.back() * lambda / down);
    total += p.back();
    if (n > c && p.back() < 1e-18 * total) break;
  }
  double nq = 0;
  for (std::size_t n = 0; n < p.size(); ++n)
    nq += std::max(static_cast<double>(n) - c, 0.0) * p[n] / total;
  return {theta * nq / lambda, nq / lambda};
}

std::optional<tick_chain_result> tick_release_chain(double lambda, double interval_s,
                                                    std::uint32_t batch) {
  const double a = lambda * interval_s;
  if (a >= batch) return std::nullopt;  // no steady state
  // Poisson(a) probabilities up to where the tail is negligible.
  std::vector<double> pa{std::exp(-a)};
  for (int k = 1; pa.back() > 1e-16 || k <= a; ++k) pa.push_back(pa.back() * a / k);
  const auto amax = static_cast<std::int64_t>(pa.size()) - 1;
  const auto n = static_cast<std::int64_t>(batch);
  // Truncate the chain beyond where the queue ever goes; double it until the last states
  // carry no probability.
  for (std::int64_t m = std::max<std::int64_t>(4 * (n + amax), 256);; m *= 2) {
    if (m > 4'000'000) return std::nullopt;
    // pi (P - I) = 0 and sum pi = 1, transposed: the last equation is the normalisation.
    std::vector<Eigen::Triplet<double>> t;
    for (std::int64_t x = 0; x < m; ++x) {
      for (std::int64_t k = 0; k <= amax; ++k) {
        std::int64_t y = std::min(std::max<std::int64_t>(x + k - n, 0), m - 1);
        if (y != m - 1) t.emplace_back(y, x, pa[static_cast<std::size_t>(k)]);
      }
      if (x != m - 1) t.emplace_back(x, x, -1.0);
      t.emplace_back(m - 1, x, 1.0);
    }
    Eigen::SparseMatrix<double> A(m, m);
    A.setFromTriplets(t.begin(), t.end());
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(m);
    rhs(m - 1) = 1.0;
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(A);
    if (lu.info() != Eigen::Success) return std::nullopt;
    Eigen::VectorXd pi = lu.solve(rhs);
    double tail = 0;
    for (std::int64_t x = m - m / 8; x < m; ++x) tail += std::abs(pi(x));
    if (tail > 1e-12) continue;  // the truncation cut off real probability: grow
    double ex = 0;
    for (std::int64_t x = 0; x < m; ++x) ex += static_cast<double>(x) * pi(x);
    return tick_chain_result{(ex + a / 2.0) / lambda, ex, static_cast<std::size_t>(m)};
  }
}

estimate_or_reason analytic_for(const scenario& s) {
  if (s.arrivals.kind != arrival_kind::poisson || s.arrivals.backlog_users > 0)
    return {std::nullopt, "arrivals are not a plain Poisson process (closed forms need one)"};
  if (s.release.mode == release_mode::tick) {
    if (s.admission || s.returns) return {std::nullopt, "admission caps or returns"};
    for (const auto& k : s.classes)
      if (k.patience_s) return {std::nullopt, "tick release with abandonment"};
    if (s.release.selection.kind == selection_kind::ratio && !s.release.selection.work_conserving)
      return {std::nullopt, "a ratio that loses empty lists' shares"};
    auto chain =
        tick_release_chain(s.arrivals.rate_per_s, s.release.interval.seconds(), s.release.batch);
    if (!chain) return {std::nullopt, "the load is at or above capacity: no steady state", true};
    analytic_estimate e;
    e.model = fmt::format("tick-release Markov chain ({} states, Eigen sparse LU)", chain->states);
    e.mean_wait_s = {chain->mean_wait_s};
    e.overall_only = true;  // the order within the queue moves waits between classes only
    return {e, ""};
  }
  if (s.lists.size() > 1 || s.admission || s.returns || s.compensation)
    return {std::nullopt, "several lists, admission caps, returns or compensation"};
  // Erlang-A: one exponential patience for everyone, exponential sessions, one order.
  std::size_t with_patience = 0;
  bool uniform = true;
  for (const auto& k : s.classes) {
    if (!k.patience_s) continue;
    ++with_patience;
    const auto& first = *s.classes.front().patience_s;
    uniform = uniform && s.classes.front().patience_s &&
              k.patience_s->kind == sim::dist_kind::exponential && k.patience_s->a == first.a;
  }
  const bool any_patience = with_patience > 0;
  const bool same_patience = uniform && with_patience == s.classes.size();
  const double patience =
      any_patience && s.classes.front().patience_s ? s.classes.front().patience_s->a : 0.0;
  if (any_patience) {
    if (!same_patience || s.release.session.kind != sim::dist_kind::exponential)
      return {std::nullopt,
              "abandonment other than one exponential patience with exponential sessions"};
    auto ea = erlang_a(static_cast<int>(s.release.slots), s.arrivals.rate_per_s,
                       s.release.session.mean(), patience);
    analytic_estimate e;
    e.model = fmt::format("M/M/{}+M (Erlang-A): mean time in queue of everyone, served or not",
                          s.release.slots);
    e.mean_wait_s = {ea.mean_time_in_queue};
    e.overall_only = true;
    e.p_abandon = ea.p_abandon;
    return {e, ""};
  }
  const double lambda = s.arrivals.rate_per_s;
  const double es = s.release.session.mean(), es2 = s.release.session.second_moment();
  const int c = static_cast<int>(s.release.slots);
  if (lambda * es >= c)
    return {std::nullopt, "the load is at or above capacity: no steady state", true};
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
