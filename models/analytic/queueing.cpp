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

std::vector<double> mmc_priority_mean_waits(int c, const std::vector<double>& lambdas,
                                            double mean_service) {
  double lambda = 0;
  for (double l : lambdas) lambda += l;
  const double capacity = c / mean_service;  // c mu
  // The time until some server frees, for an arrival that waits, is Exp(c mu) whatever the
  // order: W0 = C(c, a) / (c mu).
  const double w0 = erlang_c(c, lambda * mean_service) / capacity;
  std::vector<double> out;
  double sigma_prev = 0;
  for (double l : lambdas) {
    double sigma = sigma_prev + l / capacity;
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
  double nq = 0, busy = 0;
  for (std::size_t n = 0; n < p.size(); ++n) {
    nq += std::max(static_cast<double>(n) - c, 0.0) * p[n] / total;
    if (n >= static_cast<std::size_t>(c)) busy += p[n] / total;
  }
  return {theta * nq / lambda, nq / lambda, busy};
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

std::optional<std::vector<double>> tick_priority_mean_waits(const std::vector<double>& lambdas,
                                                            double interval_s,
                                                            std::uint32_t batch) {
  std::vector<double> out;
  double cumulative = 0, queued_before = 0;  // lambda and L of the classes so far
  for (double l : lambdas) {
    cumulative += l;
    double queued = 0;
    if (cumulative > 0) {
      auto chain = tick_release_chain(cumulative, interval_s, batch);
      if (!chain) return std::nullopt;
      queued = cumulative * chain->mean_wait_s;
    }
    out.push_back(l > 0 ? (queued - queued_before) / l : 0.0);
    queued_before = queued;
  }
  return out;
}

std::optional<double> laplace_transform(const sim::distribution& d, double s) {
  switch (d.kind) {
    case sim::dist_kind::deterministic:
      return std::exp(-s * d.a);
    case sim::dist_kind::exponential:
      return 1.0 / (1.0 + s * d.a);
    case sim::dist_kind::uniform:
      if (d.b == d.a || s == 0) return std::exp(-s * d.a);
      return (std::exp(-s * d.a) - std::exp(-s * d.b)) / (s * (d.b - d.a));
    case sim::dist_kind::gamma:
      return std::pow(1.0 + s * d.b, -d.a);
    case sim::dist_kind::erlang:
      return std::pow(1.0 + s * d.b / d.a, -d.a);
    case sim::dist_kind::empirical: {
      double sum = 0;
      for (double x : d.samples) sum += std::exp(-s * x);
      return d.samples.empty() ? std::nullopt
                               : std::optional<double>(sum / static_cast<double>(d.samples.size()));
    }
    case sim::dist_kind::normal:
    case sim::dist_kind::lognormal:
    case sim::dist_kind::weibull:  // no closed form
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<gm1_result> gm1(const sim::distribution& interarrival_s, double mean_service) {
  const double mu = 1.0 / mean_service;
  if (!laplace_transform(interarrival_s, mu) || interarrival_s.mean() <= mean_service)
    return std::nullopt;
  // f(x) = A*(mu (1 - x)) - x is convex with f(0) > 0 and f(1) = 0; with a load below 1
  // its slope at 1 is positive, so f >= 0 on [0, sigma] and f < 0 on (sigma, 1): bisection
  // to the last bit.
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid == lo || mid == hi) break;
    (*laplace_transform(interarrival_s, mu * (1.0 - mid)) - mid >= 0 ? lo : hi) = mid;
  }
  const double sigma = lo;
  return gm1_result{sigma, sigma / (mu * (1.0 - sigma))};
}

namespace {

// Classes grouped by level, lowest (served first) first; a class's wait is its level's.
std::map<double, std::vector<std::size_t>> by_level(const scenario& s) {
  std::map<double, std::vector<std::size_t>> out;
  for (std::size_t k = 0; k < s.classes.size(); ++k) out[s.classes[k].level].push_back(k);
  return out;
}

std::vector<double> level_rates(const scenario& s, double lambda,
                                const std::map<double, std::vector<std::size_t>>& levels) {
  std::vector<double> out;
  for (const auto& [lvl, ks] : levels) {
    double l = 0;
    for (auto k : ks) l += lambda * s.classes[k].share;
    out.push_back(l);
  }
  return out;
}

std::vector<double> per_class(const scenario& s,
                              const std::map<double, std::vector<std::size_t>>& levels,
                              const std::vector<double>& by_level_value) {
  std::vector<double> out(s.classes.size());
  std::size_t i = 0;
  for (const auto& [lvl, ks] : levels) {
    for (auto k : ks) out[k] = by_level_value[i];
    ++i;
  }
  return out;
}

// FIFO, or an offset/level policy that cannot reorder: with one class, or equal offsets and
// levels, every policy is FIFO.
bool one_order(const scenario& s) {
  if (s.policy.order == ordering::fifo) return true;
  for (const auto& k : s.classes)
    if (k.offset_ms != s.classes[0].offset_ms || k.level != s.classes[0].level) return false;
  return true;
}

estimate_or_reason renewal_estimate(const scenario& s, const sim::distribution& interarrival_s) {
  if (s.release.mode != release_mode::concurrency || s.lists.size() > 1 || s.admission ||
      s.returns || s.compensation)
    return {std::nullopt, "renewal arrivals: only one FIFO server (G/M/1) has a closed form here"};
  for (const auto& k : s.classes)
    if (k.patience_s) return {std::nullopt, "renewal arrivals with abandonment"};
  if (s.release.slots != 1 || s.release.session.kind != sim::dist_kind::exponential ||
      !one_order(s))
    return {std::nullopt,
            "renewal arrivals: only one server with exponential sessions in one order (G/M/1)"};
  const double es = s.release.session.mean();
  if (interarrival_s.mean() <= es)
    return {std::nullopt, "the load is at or above capacity: no steady state", true};
  auto g = gm1(interarrival_s, es);
  if (!g)
    return {std::nullopt, std::string("renewal arrivals: no closed-form transform of a ") +
                              sim::to_string(interarrival_s.kind) + " interarrival time"};
  analytic_estimate e;
  e.model = fmt::format("G/M/1 with {} interarrival times (sigma = {:.6f})",
                        sim::to_string(interarrival_s.kind), g->sigma);
  e.mean_wait_s.assign(s.classes.size(), g->mean_wait_s);
  e.p_wait = g->sigma;
  return {e, ""};
}

}  // namespace

estimate_or_reason analytic_for(const scenario& s) {
  if (s.release.mode == release_mode::active_users ||
      s.release.mode == release_mode::serving_counter)
    return {std::nullopt, std::string(to_string(s.release.mode)) +
                              " release: no closed form here (docs/products.md)"};
  const estimate_or_reason not_poisson{
      std::nullopt, "arrivals are not a plain Poisson process (closed forms need one)"};
  // The arrivals say which closed forms hold (models/spec/arrival_spec.cpp); a backlog is a
  // queue at the start, which no steady state has.
  if (const auto* interarrival_s = s.arrivals.renewal_interarrival_s())
    return s.arrivals.backlog_users == 0 ? renewal_estimate(s, *interarrival_s) : not_poisson;
  const auto rate = s.arrivals.steady_poisson_rate_per_s();
  if (!rate || s.arrivals.backlog_users > 0) return not_poisson;
  const double lambda = *rate;
  if (s.release.mode == release_mode::tick) {
    if (s.admission || s.returns) return {std::nullopt, "admission caps or returns"};
    for (const auto& k : s.classes)
      if (k.patience_s) return {std::nullopt, "tick release with abandonment"};
    if (s.release.selection.kind == selection_kind::ratio && !s.release.selection.work_conserving)
      return {std::nullopt, "a ratio that loses empty lists' shares"};
    if (s.policy.order == ordering::level && s.lists.size() == 1) {
      const auto levels = by_level(s);
      if (levels.size() > 1) {
        auto w = tick_priority_mean_waits(level_rates(s, lambda, levels),
                                          s.release.interval.seconds(), s.release.batch);
        if (!w) return {std::nullopt, "the load is at or above capacity: no steady state", true};
        analytic_estimate e;
        e.model = fmt::format(
            "VIP-first tick release, {} levels (tick-release Markov chains, Eigen sparse LU)",
            levels.size());
        e.mean_wait_s = per_class(s, levels, *w);
        return {e, ""};
      }
    }
    auto chain = tick_release_chain(lambda, s.release.interval.seconds(), s.release.batch);
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
    auto ea =
        erlang_a(static_cast<int>(s.release.slots), lambda, s.release.session.mean(), patience);
    analytic_estimate e;
    e.model = fmt::format("M/M/{}+M (Erlang-A): mean time in queue of everyone, served or not",
                          s.release.slots);
    e.mean_wait_s = {ea.mean_time_in_queue};
    e.overall_only = true;
    e.p_abandon = ea.p_abandon;
    e.p_wait = ea.p_wait;
    return {e, ""};
  }
  const double es = s.release.session.mean(), es2 = s.release.session.second_moment();
  const int c = static_cast<int>(s.release.slots);
  if (lambda * es >= c)
    return {std::nullopt, "the load is at or above capacity: no steady state", true};
  const bool exponential = s.release.session.kind == sim::dist_kind::exponential;
  analytic_estimate e;
  if (s.policy.order == ordering::level && c == 1) {
    const auto levels = by_level(s);
    auto w = cobham_mean_waits(level_rates(s, lambda, levels), es, es2);
    e.model = fmt::format(
        "{} non-preemptive priority, {} levels (Cobham)",
        s.release.session.kind == sim::dist_kind::deterministic ? "M/D/1" : "M/G/1", levels.size());
    e.mean_wait_s = per_class(s, levels, w);
    e.p_wait = lambda * es;
    return {e, ""};
  }
  if (s.policy.order == ordering::level && exponential && by_level(s).size() > 1) {
    const auto levels = by_level(s);
    auto w = mmc_priority_mean_waits(c, level_rates(s, lambda, levels), es);
    e.model = fmt::format("M/M/{} non-preemptive priority, {} levels (Cobham with Erlang C)", c,
                          levels.size());
    e.mean_wait_s = per_class(s, levels, w);
    e.p_wait = erlang_c(c, lambda * es);  // whoever is served, the servers are as busy
    return {e, ""};
  }
  if (!one_order(s))
    return {std::nullopt, "class priorities with several servers have no closed form here"};
  if (exponential) {
    e.model = fmt::format("M/M/{} (Erlang C)", c);
    e.mean_wait_s.assign(s.classes.size(), mmc_mean_wait(c, lambda, es));
    e.p_wait = erlang_c(c, lambda * es);
    // The tail needs served-in-arrival-order (not only one order for the mean): plain FIFO
    // scores below the minute (a minute cookie shuffles users who came in the same minute).
    if (s.policy.order == ordering::fifo && s.policy.unit != time_unit::min &&
        s.policy.noise == 0 && s.lists.size() <= 1)
      e.wait_decay_per_s = c / es - lambda;
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
