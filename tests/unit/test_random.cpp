#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "sim/distribution.hpp"
#include "sim/random.hpp"

using namespace waitroom::sim;

// Exact values pin the generator and the seeding: a change here changes every result.
TEST(Random, DrawsArePinned) {
  rng r(42, 0, "arrivals");
  EXPECT_EQ(r.next(), 7777507056401345923ULL);
  EXPECT_EQ(r.next(), 9267447008492673496ULL);
  rng e(42, 0, "service");
  EXPECT_DOUBLE_EQ(distribution::exponential(2.0).sample(e), 0.43783997676158004);
  rng n(42, 0, "normal");
  EXPECT_DOUBLE_EQ(distribution::normal(0.0, 1.0).sample(n), -0.56267270109423684);
  rng g(42, 0, "gamma");
  EXPECT_DOUBLE_EQ(distribution::gamma(2.5, 1.0).sample(g), 3.1498237911369911);
}

TEST(Random, StreamsAreIndependentByNameAndReplication) {
  rng a(1, 0, "arrivals"), b(1, 0, "patience"), c(1, 1, "arrivals"), d(1, 0, "arrivals");
  auto x = a.next();
  EXPECT_NE(x, b.next());
  EXPECT_NE(x, c.next());
  EXPECT_EQ(x, d.next());
}

TEST(Random, BelowIsInRangeAndUnbiased) {
  rng r(9);
  std::vector<int> counts(7, 0);
  const int n = 700000;
  for (int i = 0; i < n; ++i) ++counts[r.below(7)];
  // Each count is Binomial(n, 1/7): sd = sqrt(n p (1-p)) = 292.8; allow 5 sd.
  for (int c : counts) EXPECT_NEAR(c, n / 7.0, 5 * 292.8);
}

namespace {
// Sample mean within 5 standard errors of the true mean (false-failure rate ~ 6e-7).
void expect_mean(const distribution& d, double true_sd, std::uint64_t seed) {
  rng r(seed);
  const int n = 400000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    double x = d.sample(r);
    sum += x;
    sum2 += x * x;
  }
  double se = true_sd / std::sqrt(n);
  EXPECT_NEAR(sum / n, d.mean(), 5 * se) << to_string(d.kind);
  double var = d.second_moment() - d.mean() * d.mean();
  EXPECT_NEAR(var, true_sd * true_sd, 1e-9 * (1 + var)) << to_string(d.kind);
}
}  // namespace

TEST(Distributions, MeansMatchTheory) {
  expect_mean(distribution::exponential(2.0), 2.0, 1);
  expect_mean(distribution::uniform(1.0, 3.0), 2.0 / std::sqrt(12.0), 2);
  expect_mean(distribution::normal(5.0, 2.0), 2.0, 3);
  double s = 0.5;
  expect_mean(distribution::lognormal(0.0, s), std::sqrt((std::exp(s * s) - 1) * std::exp(s * s)),
              4);
  expect_mean(distribution::gamma(2.5, 2.0), std::sqrt(2.5) * 2.0, 5);
  expect_mean(distribution::gamma(0.5, 1.0), std::sqrt(0.5), 6);
  expect_mean(distribution::erlang(3, 1.5), 1.5 / std::sqrt(3.0), 7);
  expect_mean(distribution::constant(4.0), 0.0, 8);
  expect_mean(distribution::empirical({1.0, 2.0, 6.0}), std::sqrt(14.0 / 3.0), 9);
  const double g1 = std::tgamma(1 + 1 / 1.6), g2 = std::tgamma(1 + 2 / 1.6);
  expect_mean(distribution::weibull(1.6, 200.0), 200.0 * std::sqrt(g2 - g1 * g1), 10);
}

// The Weibull's survival, not only its mean: the share of draws above t is exp(-(t/scale)^shape)
// at three points, each within 5 binomial standard errors.
TEST(Distributions, WeibullSurvivalMatchesItsFormula) {
  const distribution d = distribution::weibull(0.7, 50.0);
  rng r(11);
  const int n = 200000;
  const std::array<double, 3> at{10.0, 50.0, 200.0};
  std::array<int, 3> above{};
  for (int i = 0; i < n; ++i) {
    const double x = d.sample(r);
    for (std::size_t k = 0; k < at.size(); ++k) above[k] += x > at[k];
  }
  for (std::size_t k = 0; k < at.size(); ++k) {
    const double p = std::exp(-std::pow(at[k] / 50.0, 0.7));
    EXPECT_NEAR(above[k] / double(n), p, 5 * std::sqrt(p * (1 - p) / n)) << at[k];
  }
}

// Stretching every duration by f multiplies the mean by f and the second moment by f^2, for
// every kind (the formulas of mean() and second_moment(), which the tests above check).
TEST(Distributions, ScaledStretchesEveryKind) {
  const double f = 2.5;
  for (const auto& d : {distribution::constant(4.0), distribution::exponential(2.0),
                        distribution::uniform(1.0, 3.0), distribution::normal(5.0, 2.0),
                        distribution::lognormal(0.3, 0.5), distribution::gamma(2.5, 2.0),
                        distribution::erlang(3, 1.5), distribution::empirical({1.0, 2.0, 6.0}),
                        distribution::weibull(1.6, 200.0)}) {
    const distribution s = d.scaled(f);
    EXPECT_EQ(s.kind, d.kind);
    EXPECT_NEAR(s.mean(), f * d.mean(), 1e-12 * f * d.mean()) << static_cast<int>(d.kind);
    EXPECT_NEAR(s.second_moment(), f * f * d.second_moment(), 1e-12 * f * f * d.second_moment())
        << static_cast<int>(d.kind);
  }
}
