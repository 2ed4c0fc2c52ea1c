// Fitting a log: censored survival (patience, service) and change points in arrivals, against
// hand calculations and against data drawn from known laws. Coverage checks count seeds: a
// 95% interval misses the truth in k of m seeds with probability P(Binomial(m, 0.05) >= k),
// stated beside each threshold.
#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <vector>

#include "models/fit/change_points.hpp"
#include "models/fit/survival.hpp"
#include "sim/random.hpp"

using namespace waitroom;
using models::fit::family;
using models::fit::observation;

namespace {

double exponential_draw(sim::rng& r, double mean) {
  return -std::log(r.uniform_open0()) * mean;
}

// Patience X from `draw`, censored by a release after C ~ exponential(release_mean): the log
// holds min(X, C) and whether the user gave up first.
template <class Draw>
std::vector<observation> censored_sample(std::uint64_t seed, std::size_t n, Draw draw,
                                         double release_mean) {
  sim::rng r(seed);
  std::vector<observation> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = draw(r);
    const double c = exponential_draw(r, release_mean);
    out.push_back({std::min(x, c), x <= c});
  }
  return out;
}

bool covers(const models::fit::parameter& p, double truth) {
  return p.lo <= truth && truth <= p.hi;
}

}  // namespace

TEST(KaplanMeier, StepsAtEventsAsByHand) {
  const std::vector<observation> obs{{1, true}, {2, false}, {3, true}, {3, true}, {4, false}};
  const auto km = models::fit::kaplan_meier(obs);
  ASSERT_EQ(km.size(), 2u);
  EXPECT_DOUBLE_EQ(km[0].t_s, 1);
  EXPECT_DOUBLE_EQ(km[0].survival, 0.8);  // 1 of 5 at risk
  EXPECT_DOUBLE_EQ(km[1].t_s, 3);
  EXPECT_DOUBLE_EQ(km[1].survival, 0.8 / 3);  // 2 of the 3 left at risk (one censored at 2)
  // Greenwood: 1/(5*4) + 2/(3*1); the log(-log) interval holds the estimate.
  const double s = 0.8 / 3, se = std::sqrt(0.05 + 2.0 / 3) / std::abs(std::log(s));
  const double z = boost::math::quantile(boost::math::normal(), 0.975);
  EXPECT_NEAR(km[1].lo, std::pow(s, std::exp(z * se)), 1e-12);
  EXPECT_NEAR(km[1].hi, std::pow(s, std::exp(-z * se)), 1e-12);
  EXPECT_LT(km[1].lo, s);
  EXPECT_GT(km[1].hi, s);
}

TEST(SurvivalFit, ExponentialIsEventsOverExposureWithAProfileInterval) {
  const std::vector<observation> obs{{10, true}, {20, false}, {30, true}, {40, false}, {50, true}};
  const auto f = models::fit::fit_survival(obs, family::exponential);
  const double rate = 3.0 / 150;
  EXPECT_NEAR(f.parameters[0].value, rate, 1e-9 * rate);
  // At each end of the interval the log-likelihood d ln(l) - l T is 3.841/2 below its maximum.
  const auto ll = [](double l) { return 3 * std::log(l) - l * 150; };
  EXPECT_NEAR(ll(rate) - ll(f.parameters[0].lo), 3.841458820694124 / 2, 1e-6);
  EXPECT_NEAR(ll(rate) - ll(f.parameters[0].hi), 3.841458820694124 / 2, 1e-6);
  EXPECT_NEAR(f.log_likelihood, ll(rate), 1e-9);
  EXPECT_NEAR(f.aic, 2 - 2 * ll(rate), 1e-9);
}

TEST(SurvivalFit, RefusesNoEventsAndWaitsNotAboveZero) {
  EXPECT_THROW(models::fit::fit_survival(std::vector<observation>{{5, false}}, family::weibull),
               std::invalid_argument);
  EXPECT_THROW(models::fit::fit_survival(std::vector<observation>{{0, true}}, family::exponential),
               std::invalid_argument);
}

// Patience exponential with mean 120 s, released after a mean 60 s: two users in three are
// released (censored). Over 20 seeds the censored fit's interval misses the truth in at most
// 4 (P(Binomial(20, 0.05) >= 5) = 0.003); ignoring censoring (the give-ups' own waits, the
// only patience a log without censoring shows) puts the mean near 40 s in every seed.
TEST(SurvivalFit, CensoringMattersAndTheCensoredIntervalCovers) {
  const double mean = 120;
  int covered = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto obs = censored_sample(
        seed, 1000, [&](sim::rng& r) { return exponential_draw(r, mean); }, 60);
    const auto f = models::fit::fit_survival(obs, family::exponential);
    covered += covers(f.parameters[0], 1 / mean);
    std::vector<observation> naive;
    for (const auto& o : obs)
      if (o.event) naive.push_back(o);
    const auto g = models::fit::fit_survival(naive, family::exponential);
    EXPECT_LT(g.mean_s(), 0.5 * mean) << "seed " << seed;
    EXPECT_FALSE(covers(g.parameters[0], 1 / mean)) << "seed " << seed;
  }
  EXPECT_GE(covered, 16);
}

// Weibull patience (shape 1.6, scale 200 s) and lognormal (mu ln 100, sigma 0.8), half or so
// censored: AIC names the right family in at least 7 of 8 seeds and each parameter's interval
// covers the truth in at least 6 of 8 (P(Binomial(8, 0.05) >= 3) = 0.006).
TEST(SurvivalFit, RecoversWeibullAndLognormalAndChoosesTheFamily) {
  const boost::math::normal normal;
  struct law {
    family f;
    std::array<double, 2> truth;
  };
  for (const law& l :
       {law{family::weibull, {1.6, 200}}, law{family::lognormal, {std::log(100.0), 0.8}}}) {
    int chosen = 0;
    std::array<int, 2> covered{};
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      const auto draw = [&](sim::rng& r) {
        const double u = r.uniform_open0();
        return l.f == family::weibull
                   ? l.truth[1] * std::pow(-std::log(u), 1 / l.truth[0])
                   : std::exp(l.truth[0] + l.truth[1] * boost::math::quantile(normal, u));
      };
      const auto obs = censored_sample(seed, 1500, draw, 150);
      const auto fits = models::fit::fit_families(obs);
      chosen += fits[0].kind == l.f;
      for (const auto& f : fits)
        if (f.kind == l.f)
          for (std::size_t j = 0; j < 2; ++j) covered[j] += covers(f.parameters[j], l.truth[j]);
    }
    EXPECT_GE(chosen, 7) << models::fit::name_of(l.f);
    EXPECT_GE(covered[0], 6) << models::fit::name_of(l.f);
    EXPECT_GE(covered[1], 6) << models::fit::name_of(l.f);
  }
}

namespace {

// Poisson counts per 1 s bin of a piecewise-constant rate.
std::vector<std::uint64_t> piecewise_counts(std::uint64_t seed, const std::vector<double>& rates,
                                            const std::vector<std::size_t>& seconds) {
  sim::rng r(seed);
  std::vector<std::uint64_t> counts;
  for (std::size_t k = 0; k < rates.size(); ++k)
    for (std::size_t s = 0; s < seconds[k]; ++s) {
      std::uint64_t c = 0;
      for (double t = exponential_draw(r, 1 / rates[k]); t < 1;
           t += exponential_draw(r, 1 / rates[k]))
        ++c;
      counts.push_back(c);
    }
  return counts;
}

}  // namespace

TEST(ChangePoints, FindsThreeChangesAndTheirRates) {
  const std::vector<double> rates{5, 50, 20, 2};
  const std::vector<std::size_t> seconds{60, 30, 90, 60};
  int exact = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto segs = models::fit::fit_change_points(piecewise_counts(seed, rates, seconds), 1.0);
    if (segs.size() != 4) continue;
    ++exact;
    double start = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_NEAR(segs[k].start_s, start, 3) << "seed " << seed << " segment " << k;
      EXPECT_NEAR(segs[k].rate_per_s, rates[k], 5 * std::sqrt(rates[k] / segs[k].duration_s))
          << "seed " << seed << " segment " << k;
      EXPECT_LE(segs[k].lo, segs[k].rate_per_s);
      EXPECT_GE(segs[k].hi, segs[k].rate_per_s);
      start += static_cast<double>(seconds[k]);
    }
  }
  EXPECT_GE(exact, 9);
}

TEST(ChangePoints, AConstantRateIsOneSegmentAndCountsAddUp) {
  int one = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto counts = piecewise_counts(seed, {30}, {240});
    const auto segs = models::fit::fit_change_points(counts, 1.0);
    one += segs.size() == 1;
    std::uint64_t total = 0, in_segments = 0;
    for (auto c : counts) total += c;
    for (const auto& s : segs) in_segments += s.arrivals;
    EXPECT_EQ(in_segments, total);
    EXPECT_DOUBLE_EQ(segs.back().start_s + segs.back().duration_s, 240);
  }
  EXPECT_GE(one, 9);
  EXPECT_THROW(models::fit::fit_change_points(std::vector<std::uint64_t>{}, 1.0),
               std::invalid_argument);
  EXPECT_THROW(models::fit::fit_change_points(std::vector<std::uint64_t>{1, 2}, 0.0),
               std::invalid_argument);
}
