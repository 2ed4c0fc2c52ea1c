// Per-replication P(wait > 0) and P(wait > t) against queueing theory: in M/M/c
// FIFO an arrival waits with the Erlang C probability C, and P(W > t) = C exp(-(c mu - lambda)
// t) (for c = 1: rho exp(-(mu - lambda) t)). Each replication measures its share; the
// tolerance is the 99.9% Student-t interval over the replications (30 runs of 10^5 s or
// 6 x 10^4 s: the interval's width comes from the run length, nothing is added to it). The
// interval must also be narrow (the test has power).
#include <gtest/gtest.h>

#include <cmath>

#include "models/analytic/queueing.hpp"
#include "models/run/replicate.hpp"
#include "models/run/summary.hpp"
#include "reports/report.hpp"
#include "sim/confidence.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

constexpr double level = 0.999;
constexpr std::uint32_t replications = 30;

std::string mmc_json(double lambda, int c, double horizon, const std::string& sla = "") {
  return R"({"name": "mmc", "seed": 11, "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": )" +
         std::to_string(lambda) + R"(},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": )" +
         std::to_string(c) + R"(, "session_s": {"dist": "exponential", "mean": 1.0}},
    "run": {"horizon_s": )" +
         std::to_string(horizon) + R"(, "sample_interval_s": 1000})" + sla + "}";
}

sim::interval across(const std::vector<models::room_result>& rs,
                     const std::function<std::optional<double>(const models::wait_stats&)>& f) {
  std::vector<double> xs;
  for (const auto& r : rs) xs.push_back(f(r.overall).value());
  return sim::mean_interval(xs, level);
}

void expect_tails(const std::vector<models::room_result>& rs, double p_wait, double decay,
                  std::initializer_list<double> ts) {
  auto p = across(rs, models::waited_share);
  EXPECT_TRUE(p.contains(p_wait)) << p.mean << " +- " << p.half_width << " vs " << p_wait;
  EXPECT_LT(p.half_width, 0.02 * p_wait);
  for (double t : ts) {
    const double theory = p_wait * std::exp(-decay * t);
    auto q =
        across(rs, [t](const models::wait_stats& w) { return models::wait_above_share(w, t); });
    EXPECT_TRUE(q.contains(theory))
        << "t " << t << ": " << q.mean << " +- " << q.half_width << " vs " << theory;
    EXPECT_LT(q.half_width, 0.1 * theory) << "t " << t;
  }
}

}  // namespace

TEST(TailProbabilities, MM1MatchesRhoTimesExponentialTail) {
  auto s = scenario_from(mmc_json(0.8, 1, 100000));
  auto rs = models::replicate(s, s.seed, replications, 2);
  expect_tails(rs, 0.8, 1.0 - 0.8, {1.0, 5.0, 10.0});
}

TEST(TailProbabilities, MMcMatchesErlangC) {
  const double lambda = 3.5;
  const int c = 4;
  auto s = scenario_from(mmc_json(lambda, c, 60000));
  auto rs = models::replicate(s, s.seed, replications, 2);
  expect_tails(rs, models::erlang_c(c, lambda), c * 1.0 - lambda, {0.5, 2.0});
}

TEST(TailProbabilities, HistogramShareIsExactOnHandCheckedWaits) {
  // Waits 0, 100 ns, 1 s, 2 s, 3 s: shares by counting, 1 s and 2 s sitting in their buckets.
  models::wait_stats w;
  for (std::int64_t ns : {0LL, 100LL, 1'000'000'000LL, 2'000'000'000LL, 3'000'000'000LL})
    w.wait_ns.add(ns);
  EXPECT_DOUBLE_EQ(*models::waited_share(w), 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(*models::wait_above_share(w, 50e-9), 4.0 / 5.0);   // exact bucket
  EXPECT_DOUBLE_EQ(*models::wait_above_share(w, 100e-9), 3.0 / 5.0);  // strictly above
  EXPECT_DOUBLE_EQ(*models::wait_above_share(w, 10.0), 0.0);
  // t = 2.5 s lies between buckets: exactly one wait above.
  EXPECT_DOUBLE_EQ(*models::wait_above_share(w, 2.5), 1.0 / 5.0);
  // Inside 1 s's bucket: between the bucket's share (2 above for sure, 3 at most).
  const double in = *models::wait_above_share(w, 1.0);
  EXPECT_GT(in, 2.0 / 5.0);
  EXPECT_LT(in, 3.0 / 5.0);
  w.wait_ns.compact();  // a replication's summary reads the same
  EXPECT_DOUBLE_EQ(*models::wait_above_share(w, 1.0), in);
  EXPECT_FALSE(models::waited_share(models::wait_stats{}));
}

TEST(TailProbabilities, PointsComeFromTheSlaOrFixedOnes) {
  auto plain = scenario_from(mmc_json(0.8, 1, 100));
  std::vector<double> fixed;
  for (auto p : models::tail_points(plain, 0)) {
    EXPECT_FALSE(p.from_sla);
    fixed.push_back(p.t_s);
  }
  EXPECT_EQ(fixed, (std::vector<double>{10, 60, 300, 900, 3600}));
  auto with = scenario_from(mmc_json(0.8, 1, 100, R"(, "sla": {"targets": [
      {"metric": "p95_wait_s", "max": 30}, {"class": "all", "metric": "max_wait_s", "max": 120},
      {"metric": "mean_wait_s", "max": 30}, {"metric": "refused_share", "max": 0.1}]})"));
  std::vector<double> sla;
  for (auto p : models::tail_points(with, 0)) {
    EXPECT_TRUE(p.from_sla);
    sla.push_back(p.t_s);
  }
  EXPECT_EQ(sla, (std::vector<double>{30, 120}));
}

TEST(TailProbabilities, ReplicationsJsonReportsThePerReplicationIntervals) {
  auto s = scenario_from(mmc_json(0.8, 1, 2000));
  auto rs = models::replicate(s, s.seed, 6, 2);
  auto j = reports::replications_json(s, rs, 0.95, "test");
  const auto& c = j["classes"][0];
  std::vector<double> xs;
  for (const auto& r : rs) xs.push_back(*models::waited_share(r.by_class[0]));
  auto iv = sim::mean_interval(xs, 0.95);
  EXPECT_DOUBLE_EQ(c["p_waited"]["estimate"].get<double>(), iv.mean);
  EXPECT_DOUBLE_EQ(c["p_waited"]["ci"][0].get<double>(), iv.lo());
  ASSERT_EQ(c["p_wait_above"].size(), 5u);
  EXPECT_EQ(c["p_wait_above"][0]["t_s"].get<double>(), 10.0);
  EXPECT_EQ(c["p_wait_above"][0]["from"], "fixed");
  xs.clear();
  for (const auto& r : rs) xs.push_back(*models::wait_above_share(r.by_class[0], 10.0));
  EXPECT_DOUBLE_EQ(c["p_wait_above"][0]["estimate"].get<double>(),
                   sim::mean_interval(xs, 0.95).mean);
}

TEST(AbandonersWaits, HistogramIsThePatienceDistributionWhenNobodyIsServed) {
  // One slot held for 10^9 s by the first user: everyone after waits until patience runs out,
  // so each abandoner's wait is exactly its patience, exponential with mean 10 s. Arrivals
  // stop 1,000 s before the horizon: a user still waiting then has patience > 1,000 s
  // (probability e^-100), so no abandoner's wait is cut short. Each share is tested with a
  // 4.5-sigma binomial tolerance from the number of abandoners (plus the in-bucket bound).
  auto s = scenario_from(R"({"name": "no-service", "seed": 5,
    "classes": [{"name": "vip", "share": 0.3, "patience_s": {"dist": "exponential", "mean": 10}},
                {"name": "normal", "share": 0.7, "patience_s": {"dist": "exponential", "mean": 10}}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 20000, "rate_per_s": 1}]},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 1,
                "session_s": {"dist": "deterministic", "value": 1e9}},
    "run": {"horizon_s": 21000, "sample_interval_s": 100}})");
  auto r = models::run_scenario(s, s.seed, 0);
  for (const auto* w : {&r.by_class[0], &r.by_class[1], &r.overall}) {
    ASSERT_TRUE(w->abandon_ns);
    const auto n = static_cast<double>(w->abandon_ns->count());
    EXPECT_EQ(w->abandon_ns->count(), w->abandon_s.count());
    EXPECT_EQ(w->abandon_s.count() + w->wait_s.count(), w->arrived);  // nobody cut short
    EXPECT_GT(n, 5000);
    for (double t : {1.0, 5.0, 10.0, 20.0, 40.0}) {
      const double p = std::exp(-t / 10.0);
      const double got = *models::share_above(*w->abandon_ns, t);
      // A bucket spans < 1/128 of t; its mass is at most density(t) * t / 128.
      const double bucket = p / 10.0 * t / 128.0;
      EXPECT_NEAR(got, p, 4.5 * std::sqrt(p * (1 - p) / n) + bucket) << "t " << t;
    }
  }
  // The overall histogram is the classes' together.
  EXPECT_EQ(r.overall.abandon_ns->count(),
            r.by_class[0].abandon_ns->count() + r.by_class[1].abandon_ns->count());
  // Nobody gives up without patience: no histogram at all.
  auto served = scenario_from(mmc_json(0.5, 1, 1000));
  EXPECT_FALSE(models::run_scenario(served, 1, 0).overall.abandon_ns);
}
