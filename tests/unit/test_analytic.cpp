#include <gtest/gtest.h>

#include <cmath>

#include "models/analytic/queueing.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

TEST(Analytic, ClosedFormsMatchHandValues) {
  EXPECT_NEAR(models::erlang_c(1, 0.8), 0.8, 1e-12);  // M/M/1: rho
  EXPECT_NEAR(models::erlang_c(2, 1.0), 1.0 / 3.0, 1e-12);
  // M/M/4 at 3.5: sum a^k/k! (k < 4) = 17.770833; a^4/4! * 4/0.5 = 50.020833.
  EXPECT_NEAR(models::erlang_c(4, 3.5), 50.020833333 / (17.770833333 + 50.020833333), 1e-9);
  EXPECT_NEAR(models::mmc_mean_wait(1, 0.8, 1.0), 4.0, 1e-12);
  EXPECT_NEAR(models::mg1_mean_wait(0.7, 1.0, 1.0), 0.7 / 0.6, 1e-12);  // M/D/1
  auto w = models::cobham_mean_waits({0.2, 0.6}, 1.0, 2.0);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NEAR(w[0], 1.0, 1e-12);
  EXPECT_NEAR(w[1], 5.0, 1e-12);
}

TEST(Analytic, ThePickedModelFitsTheScenario) {
  auto load = [](const std::string& name) {
    return models::parse_scenario(
        models::read_json_file(testing_support::source_path("scenarios/" + name)), name,
        testing_support::source_path("scenarios"));
  };
  auto mmc = models::analytic_for(load("mmc_validation.json"));
  ASSERT_TRUE(mmc.estimate);
  EXPECT_EQ(mmc.estimate->model, "M/M/4 (Erlang C)");
  EXPECT_NEAR(mmc.estimate->mean_wait_s[0], models::mmc_mean_wait(4, 3.5, 1.0), 1e-12);
  auto prio = models::analytic_for(load("priority_mm1.json"));
  ASSERT_TRUE(prio.estimate);
  EXPECT_NEAR(prio.estimate->mean_wait_s[0], 1.0, 1e-12);
  EXPECT_NEAR(prio.estimate->mean_wait_s[1], 5.0, 1e-12);
  auto clinic = models::analytic_for(load("clinic.json"));
  EXPECT_FALSE(clinic.estimate);
  EXPECT_NE(clinic.reason.find("Poisson"), std::string::npos);
}

TEST(Analytic, TickChainMatchesTheDiscreteQueueFormula) {
  // One release per tick: X' = max(X + A - 1, 0) with A ~ Poisson(a) has
  // E[X] = a^2 / (2 (1 - a)); the mean wait is (E[X] + a / 2) / lambda.
  for (double a : {0.3, 0.5, 0.8}) {
    auto r = models::tick_release_chain(a, 1.0, 1);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->mean_queue_after_tick, a * a / (2 * (1 - a)), 1e-9) << a;
    EXPECT_NEAR(r->mean_wait_s, (a * a / (2 * (1 - a)) + a / 2) / a, 1e-9) << a;
  }
  EXPECT_FALSE(
      models::tick_release_chain(30, 0.2, 6));  // 6 per tick for 6 per tick: no steady state
}

TEST(Analytic, ErlangAWithPatienceEqualToServiceIsAnInfiniteServerQueue) {
  // theta = mu: everyone leaves at rate mu whether served or not, so the number present is
  // Poisson(lambda / mu) and E[Nq] = E[max(N - c, 0)].
  const double lambda = 3.0;
  const int c = 2;
  double p = std::exp(-lambda), nq = 0;
  for (int n = 0; n < 200; ++n) {
    nq += std::max(n - c, 0) * p;
    p *= lambda / (n + 1);
  }
  auto r = models::erlang_a(c, lambda, 1.0, 1.0);
  EXPECT_NEAR(r.mean_time_in_queue, nq / lambda, 1e-12);
  EXPECT_NEAR(r.p_abandon, nq / lambda, 1e-12);  // theta = 1
}
