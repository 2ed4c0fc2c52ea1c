#pragma once
// Closed forms of queueing theory, used by `waitroom estimate` and the validation tests.
#include <optional>
#include <string>
#include <vector>

#include "models/scenario/scenario.hpp"

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

// Erlang-A (M/M/c+M): exponential patience with mean 1/theta. Solved as a birth-death chain
// (up lambda, down min(n, c) mu + max(n - c, 0) theta), truncated where the tail is nil.
struct erlang_a_result {
  double p_abandon;           // theta E[Nq] / lambda
  double mean_time_in_queue;  // over everyone, served or not: E[Nq] / lambda
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

struct analytic_estimate {
  std::string model;                // e.g. "M/M/4 (Erlang C)"
  std::vector<double> mean_wait_s;  // per class
  std::optional<double> p_wait;     // probability of waiting, when known
  std::optional<double> p_abandon;  // Erlang-A
  bool overall_only = false;        // mean_wait_s[0] is for all users, not per class
};

// The closed form that matches the scenario, or why none does.
struct estimate_or_reason {
  std::optional<analytic_estimate> estimate;
  std::string reason;
  bool unstable = false;  // the load is at or above capacity: waits grow without bound
};
estimate_or_reason analytic_for(const scenario& s);

}  // namespace waitroom::models
