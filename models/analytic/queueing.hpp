#pragma once
// Closed forms of queueing theory, used by `waitroom estimate` and the validation tests.
#include <optional>
#include <string>
#include <vector>

#include "models/spec/scenario.hpp"
#include "sim/distribution.hpp"

namespace waitroom::models {

// Erlang C: probability that an arrival waits in M/M/c with offered load a = lambda / mu
// (requires a < c).
double erlang_c(int c, double a);
// M/M/c mean wait in queue.
double mmc_mean_wait(int c, double lambda, double mean_service);
// M/G/1 mean wait in queue (Pollaczek-Khinchine): lambda E[S^2] / (2 (1 - rho)).
double mg1_mean_wait(double lambda, double service_mean, double service_second_moment);
// Non-preemptive priority M/G/1 (Cobham): class k (0 = highest) waits
// W0 / ((1 - sigma_{k-1}) (1 - sigma_k)), W0 = sum lambda_i E[S^2] / 2.
std::vector<double> cobham_mean_waits(const std::vector<double>& lambdas, double service_mean,
                                      double service_second_moment);
// Non-preemptive priority M/M/c, every class served at the same rate mu = 1 / mean_service
// (Cobham's formula with the Erlang C waiting probability): class k (0 = highest) waits
// C(c, a) / (c mu (1 - sigma_{k-1}) (1 - sigma_k)), sigma_k = sum_{i <= k} lambda_i / (c mu).
// Requires sum lambda_i < c mu.
std::vector<double> mmc_priority_mean_waits(int c, const std::vector<double>& lambdas,
                                            double mean_service);

// Erlang-A (M/M/c+M): exponential patience with mean 1/theta. Solved as a birth-death chain
// (up lambda, down min(n, c) mu + max(n - c, 0) theta), truncated where the tail is nil.
struct erlang_a_result {
  double p_abandon;           // theta E[Nq] / lambda
  double mean_time_in_queue;  // over everyone, served or not: E[Nq] / lambda
  double p_wait;              // an arrival finds every server busy: P(N >= c) (PASTA)
};
erlang_a_result erlang_a(int c, double lambda, double mean_service, double mean_patience);

// The tick-release queue: Poisson arrivals (rate lambda), every `interval_s` the first
// `batch` waiting users leave. After a tick X' = max(X + A - batch, 0) with A ~
// Poisson(lambda interval): a Markov chain whose stationary law is solved with Eigen
// (sparse LU). Its mean wait over all users, by Little's law, is
// (E[X] + lambda interval / 2) / lambda, whatever the order within the queue.
struct tick_chain_result {
  double mean_wait_s;
  double mean_queue_after_tick;
  std::size_t states;
};
std::optional<tick_chain_result> tick_release_chain(double lambda, double interval_s,
                                                    std::uint32_t batch);
// VIP-first tick release: classes by strict priority (0 first), Poisson rates lambdas[k].
// The users of classes 0..k form a tick-release chain of their own (the classes after them
// never take a release they would get), so L_{<=k} = lambda_{<=k} W(lambda_{<=k}) from that
// one-dimensional chain, and class k's mean wait is (L_{<=k} - L_{<=k-1}) / lambda_k (Little).
// Equal to the two-class chain on (VIPs, normals) without its quadratic state space.
// Empty when the whole load is at or above capacity. A class with rate 0 gets 0.
std::optional<std::vector<double>> tick_priority_mean_waits(const std::vector<double>& lambdas,
                                                            double interval_s, std::uint32_t batch);

// E[exp(-s X)], where the distribution has a closed form for it (not normal or lognormal).
std::optional<double> laplace_transform(const sim::distribution& d, double s);
// G/M/1: renewal arrivals (interarrival times X), one server with exponential service, FIFO.
// An arrival finds the server busy with probability sigma, the root in (0, 1) of
// sigma = E[exp(-mu (1 - sigma) X)], and waits sigma / (mu (1 - sigma)) on average.
// Empty when the interarrival law has no transform here or the load is at or above 1.
struct gm1_result {
  double sigma;
  double mean_wait_s;
};
std::optional<gm1_result> gm1(const sim::distribution& interarrival_s, double mean_service);

struct analytic_estimate {
  std::string model;                // e.g. "M/M/4 (Erlang C)"
  std::vector<double> mean_wait_s;  // per class
  std::optional<double> p_wait;     // probability of waiting, when known
  std::optional<double> p_abandon;  // Erlang-A
  // FIFO M/M/c: P(wait > t) = p_wait exp(-decay t), decay = c mu - lambda (per second).
  std::optional<double> wait_decay_per_s;
  bool overall_only = false;  // mean_wait_s[0] is for all users, not per class
};

// The closed form that matches the scenario, or why none does.
struct estimate_or_reason {
  std::optional<analytic_estimate> estimate;
  std::string reason;
  bool unstable = false;  // the load is at or above capacity: waits grow without bound
};
estimate_or_reason analytic_for(const scenario& s);

}  // namespace waitroom::models
