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
  // FIFO M/M/4: P(wait > t) = C exp(-(4 mu - lambda) t), decay 4 - 3.5.
  ASSERT_TRUE(mmc.estimate->wait_decay_per_s);
  EXPECT_DOUBLE_EQ(*mmc.estimate->wait_decay_per_s, 0.5);
  auto prio = models::analytic_for(load("priority_mm1.json"));
  ASSERT_TRUE(prio.estimate);
  EXPECT_NEAR(prio.estimate->mean_wait_s[0], 1.0, 1e-12);
  EXPECT_NEAR(prio.estimate->mean_wait_s[1], 5.0, 1e-12);
  EXPECT_FALSE(prio.estimate->wait_decay_per_s);  // priority: the tail is not one exponential
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

TEST(Analytic, PriorityMMcMatchesExactRationals) {
  // M/M/3, mu = 1, two classes of rate 1: a = 2, C(3, 2) = 4 / (5 + 4) = 4/9 (sum a^k/k! for
  // k < 3 is 5; a^3/3! * 3 / (3 - 2) = 4). W0 = C / (c mu) = 4/27; sigma = 1/3, 2/3.
  auto w = models::mmc_priority_mean_waits(3, {1.0, 1.0}, 1.0);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NEAR(w[0], 2.0 / 9.0, 1e-9 * 2.0 / 9.0);  // (4/27) / (2/3)
  EXPECT_NEAR(w[1], 2.0 / 3.0, 1e-9 * 2.0 / 3.0);  // (4/27) / (2/3 * 1/3)
  // M/M/2 at a = 1 (C = 1/3, W0 = 1/6), three classes 0.25, 0.5, 0.25: sigma = 1/8, 3/8, 1/2.
  w = models::mmc_priority_mean_waits(2, {0.25, 0.5, 0.25}, 1.0);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NEAR(w[0], 4.0 / 21.0, 1e-9 * 4.0 / 21.0);
  EXPECT_NEAR(w[1], 32.0 / 105.0, 1e-9 * 32.0 / 105.0);
  EXPECT_NEAR(w[2], 8.0 / 15.0, 1e-9 * 8.0 / 15.0);
  // Conservation: the rate-weighted waits are FIFO M/M/2's C / (c mu - lambda) = 1/3.
  EXPECT_NEAR(0.25 * w[0] + 0.5 * w[1] + 0.25 * w[2], 1.0 / 3.0, 1e-12);
  // With service time 2 (mu = 1/2) every wait doubles when the rates halve.
  auto slow = models::mmc_priority_mean_waits(2, {0.125, 0.25, 0.125}, 2.0);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(slow[k], 2 * w[k], 1e-9 * 2 * w[k]);
}

TEST(Analytic, PriorityMD1MatchesExactRationals) {
  // Deterministic service D = 1: E[S^2] = 1, lambdas 0.2 and 0.4: W0 = 0.3,
  // W1 = 0.3 / 0.8 = 3/8, W2 = 0.3 / (0.8 * 0.4) = 15/16.
  auto w = models::cobham_mean_waits({0.2, 0.4}, 1.0, 1.0);
  EXPECT_NEAR(w[0], 3.0 / 8.0, 1e-9 * 3.0 / 8.0);
  EXPECT_NEAR(w[1], 15.0 / 16.0, 1e-9 * 15.0 / 16.0);
  auto s = testing_support::scenario_from(R"({"name": "md1-prio",
    "classes": [{"name": "vip", "share": 0.3333333333333333, "level": 0},
                {"name": "normal", "share": 0.6666666666666667, "level": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 0.6},
    "queue": {"policy": "level", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "deterministic", "value": 1.0}},
    "run": {"horizon_s": 1000}})");
  auto e = models::analytic_for(s);
  ASSERT_TRUE(e.estimate) << e.reason;
  EXPECT_EQ(e.estimate->model, "M/D/1 non-preemptive priority, 2 levels (Cobham)");
  EXPECT_NEAR(e.estimate->mean_wait_s[0], 3.0 / 8.0, 1e-9 * 3.0 / 8.0);
  EXPECT_NEAR(e.estimate->mean_wait_s[1], 15.0 / 16.0, 1e-9 * 15.0 / 16.0);
  EXPECT_NEAR(*e.estimate->p_wait, 0.6, 1e-12);
}

TEST(Analytic, ErlangAProbabilityOfWaitingMatchesThePoissonCase) {
  // theta = mu: the number present is Poisson(lambda / mu), so P(wait) = P(N >= c).
  for (int c : {1, 2, 5}) {
    for (double lambda : {0.5, 3.0, 7.0}) {
      double p = std::exp(-lambda), below = 0;
      for (int n = 0; n < c; ++n) {
        below += p;
        p *= lambda / (n + 1);
      }
      auto r = models::erlang_a(c, lambda, 2.0, 2.0);  // mu = theta = 1/2: a = 2 lambda
      double pa = std::exp(-2 * lambda), below_a = 0;
      for (int n = 0; n < c; ++n) {
        below_a += pa;
        pa *= 2 * lambda / (n + 1);
      }
      EXPECT_NEAR(r.p_wait, 1.0 - below_a, 1e-9 * (1.0 - below_a)) << c << " " << lambda;
      auto unit = models::erlang_a(c, lambda, 1.0, 1.0);
      EXPECT_NEAR(unit.p_wait, 1.0 - below, 1e-9 * (1.0 - below)) << c << " " << lambda;
    }
  }
  // c = 1, lambda = mu = theta = 1: P(wait) = 1 - e^-1 exactly.
  EXPECT_NEAR(models::erlang_a(1, 1.0, 1.0, 1.0).p_wait, 1.0 - std::exp(-1.0), 1e-12);
}

TEST(Analytic, TickPriorityMatchesTheTwoClassChain) {
  // The two-class chain on (VIPs, normals) after each tick, solved here by power iteration
  // on a truncated grid: independent of the one-dimensional chains and their Eigen solve.
  const double lv = 0.3, ln = 0.6;
  const std::uint32_t b = 2;
  const int m = 40, amax = 18;
  auto poisson = [&](double a) {
    std::vector<double> p{std::exp(-a)};
    for (int k = 1; k <= amax; ++k) p.push_back(p.back() * a / k);
    return p;
  };
  const auto pv = poisson(lv), pn = poisson(ln);
  std::vector<double> pi(m * m, 0.0), next(m * m);
  pi[0] = 1.0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::fill(next.begin(), next.end(), 0.0);
    for (int v = 0; v < m; ++v)
      for (int n = 0; n < m; ++n) {
        double here = pi[v * m + n];
        if (here < 1e-300) continue;
        for (int i = 0; i <= amax; ++i)
          for (int j = 0; j <= amax; ++j) {
            int v1 = v + i, n1 = n + j;
            int rv = std::min<int>(v1, static_cast<int>(b));
            int rn = std::min<int>(n1, static_cast<int>(b) - rv);
            int v2 = std::min(v1 - rv, m - 1), n2 = std::min(n1 - rn, m - 1);
            next[v2 * m + n2] += here * pv[i] * pn[j];
          }
      }
    double diff = 0;
    for (std::size_t k = 0; k < pi.size(); ++k) diff += std::abs(next[k] - pi[k]);
    pi.swap(next);
    if (diff < 1e-15) break;
  }
  double ev = 0, en = 0, tail = 0;
  for (int v = 0; v < m; ++v)
    for (int n = 0; n < m; ++n) {
      ev += v * pi[v * m + n];
      en += n * pi[v * m + n];
      if (v == m - 1 || n == m - 1) tail += pi[v * m + n];
    }
  ASSERT_LT(tail, 1e-13);  // the truncation cut nothing that matters
  const double wv = (ev + lv / 2) / lv, wn = (en + ln / 2) / ln;
  auto w = models::tick_priority_mean_waits({lv, ln}, 1.0, b);
  ASSERT_TRUE(w);
  EXPECT_NEAR((*w)[0], wv, 1e-9 * wv);
  EXPECT_NEAR((*w)[1], wn, 1e-9 * wn);
  EXPECT_LT((*w)[0], (*w)[1]);
  EXPECT_FALSE(models::tick_priority_mean_waits({1.0, 1.0}, 1.0, 2));  // at capacity
}

TEST(Analytic, GM1RootMatchesIndependentValues) {
  // E_2/M/1 (mu = 1, rho = lambda): sigma (2 rho + 1 - sigma)^2 = 4 rho^2 has the root 1 and
  // those of sigma^2 - (4 rho + 1) sigma + 4 rho^2: sigma = (4 rho + 1 - sqrt(8 rho + 1)) / 2.
  for (double rho : {0.3, 0.8, 0.95}) {
    const double sigma = (4 * rho + 1 - std::sqrt(8 * rho + 1)) / 2;
    auto g = models::gm1(sim::distribution::erlang(2, 1.0 / rho), 1.0);
    ASSERT_TRUE(g) << rho;
    EXPECT_NEAR(g->sigma, sigma, 1e-9 * sigma) << rho;
    EXPECT_NEAR(g->mean_wait_s, sigma / (1 - sigma), 1e-9 * sigma / (1 - sigma)) << rho;
    // Gamma with shape 2 is the same law.
    EXPECT_NEAR(models::gm1(sim::distribution::gamma(2, 0.5 / rho), 1.0)->sigma, sigma,
                1e-9 * sigma);
  }
  // M/M/1: sigma = rho exactly.
  EXPECT_NEAR(models::gm1(sim::distribution::exponential(1.25), 1.0)->sigma, 0.8, 1e-12);
  // D/M/1, D = 1.25, mu = 1: sigma = exp(-1.25 (1 - sigma)), solved here by Newton's method
  // from 0 (a different method from the library's bisection).
  double x = 0;
  for (int i = 0; i < 100; ++i) {
    double f = std::exp(-1.25 * (1 - x)) - x, df = 1.25 * std::exp(-1.25 * (1 - x)) - 1;
    x -= f / df;
  }
  auto d = models::gm1(sim::distribution::constant(1.25), 1.0);
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->sigma, x, 1e-9 * x);
  EXPECT_GT(x, 0.5);  // the root inside (0, 1), not the trivial one at 1
  EXPECT_LT(x, 0.8);  // deterministic arrivals wait less than Poisson ones
  // An empirical law of one value is that deterministic one.
  EXPECT_NEAR(models::gm1(sim::distribution::empirical({1.25}), 1.0)->sigma, x, 1e-12);
  EXPECT_FALSE(models::gm1(sim::distribution::lognormal(0.0, 0.5), 0.5));  // no transform
  EXPECT_FALSE(models::gm1(sim::distribution::constant(1.0), 1.0));        // rho = 1
}
