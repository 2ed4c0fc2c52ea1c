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

struct analytic_estimate {
  std::string model;                // e.g. "M/M/4 (Erlang C)"
  std::vector<double> mean_wait_s;  // per class
  std::optional<double> p_wait;     // probability of waiting, when known
};

// The closed form that matches the scenario, or why none does.
struct estimate_or_reason {
  std::optional<analytic_estimate> estimate;
  std::string reason;
};
estimate_or_reason analytic_for(const scenario& s);

}  // namespace waitroom::models
