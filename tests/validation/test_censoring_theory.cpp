// One warm-up rule for every statistic, against queueing theory: an Erlang-A queue
// (M/M/2+M) that starts with a backlog far from steady state, cut off by warmup_s. Before the
// rule, abandonments and abandoners' waits counted the backlog (P(abandon) more than twice
// the theory) and Little's law took the whole run. Tolerances: the 99.9% t interval over
// independent replications, as in test_queueing_theory.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/room/room.hpp"
#include "models/sla/sla.hpp"
#include "reports/report.hpp"
#include "sim/confidence.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

TEST(CensoringTheory, ErlangAWithWarmupMatchesTheoryInEveryStatistic) {
  const double lambda = 2.2, theta = 0.5;
  const int c = 2;
  // The birth-death chain: up at lambda, down at min(n, c) mu + max(n - c, 0) theta.
  std::vector<double> p{1.0};
  for (int n = 0; n < 400; ++n)
    p.push_back(p.back() * lambda / (std::min(n + 1, c) * 1.0 + std::max(n + 1 - c, 0) * theta));
  double total = 0, nq = 0;
  for (double x : p) total += x;
  for (std::size_t n = 0; n < p.size(); ++n)
    nq += std::max<double>(static_cast<double>(n) - c, 0) * p[n] / total;
  const double p_abandon = theta * nq / lambda, time_in_queue = nq / lambda;

  // 3,000 users at t = 0 (most give up within a minute), warm-up 10% of the horizon.
  auto s = scenario_from(R"({"name": "erlang-a-backlog",
    "classes": [{"name": "all", "patience_s": {"dist": "exponential", "mean": 2}}],
    "arrivals": {"process": "poisson", "rate_per_s": 2.2, "backlog_users": 3000},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 2, "session_s": {"dist": "exponential", "mean": 1}},
    "run": {"horizon_s": 30000, "warmup_s": 3000, "sample_interval_s": 1000}})");
  constexpr double level = 0.999;
  constexpr int replications = 20;
  std::vector<double> abandon_share, queue_time, gap, old_share;
  for (int rep = 0; rep < replications; ++rep) {
    const auto r = models::run_scenario(s, s.seed, static_cast<std::uint64_t>(rep));
    const auto& w = r.overall;
    EXPECT_GT(w.abandoned, w.abandon_s.count() + 2000);  // the backlog gave up, uncounted
    abandon_share.push_back(models::metric_value(r, -1, models::sla_metric::abandoned_share));
    // What the share was before the rule: everyone who gave up over everyone who came.
    old_share.push_back(static_cast<double>(w.abandoned) / static_cast<double>(w.arrived));
    const double sum = w.wait_s.mean() * static_cast<double>(w.wait_s.count()) +
                       w.abandon_s.mean() * static_cast<double>(w.abandon_s.count());
    queue_time.push_back(sum / static_cast<double>(w.wait_s.count() + w.abandon_s.count()));
    const auto j = reports::result_json(s, r, "test");
    EXPECT_DOUBLE_EQ(j["littles_law"]["from_s"].get<double>(), 3000.0);
    gap.push_back(j["littles_law"]["relative_gap"].get<double>());
  }
  auto pa = sim::mean_interval(abandon_share, level);
  auto tq = sim::mean_interval(queue_time, level);
  EXPECT_TRUE(pa.contains(p_abandon)) << pa.mean << " +- " << pa.half_width << " vs " << p_abandon;
  EXPECT_TRUE(tq.contains(time_in_queue))
      << tq.mean << " +- " << tq.half_width << " vs " << time_in_queue;
  EXPECT_LT(tq.half_width, 0.1 * time_in_queue);  // the test has power
  // and teeth: the share without the warm-up rule is far outside the interval.
  EXPECT_FALSE(sim::mean_interval(old_share, level).contains(p_abandon));
  // L = lambda W over the counted window: only users queued across its two ends break it,
  // about E[Nq] users for E[W] seconds each out of L * 27,000 user-seconds: ~1e-4.
  for (double g : gap) EXPECT_LT(g, 0.01);
}

// An M/M/1 queue that starts with 500 users: with warm-up (10% of the run) the mean wait and
// the share still waiting at the end come from the steady state only.
TEST(CensoringTheory, MM1WithWarmupAndBacklogMatchesTheory) {
  auto s = scenario_from(R"({"name": "mm1-backlog", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 0.8, "backlog_users": 500},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "exponential", "mean": 1}},
    "run": {"horizon_s": 40000, "warmup_s": 4000, "sample_interval_s": 1000}})");
  const double wq = 0.8 / (1.0 - 0.8);  // rho / (mu - lambda)
  std::vector<double> mean;
  for (int rep = 0; rep < 20; ++rep) {
    const auto r = models::run_scenario(s, s.seed, static_cast<std::uint64_t>(rep));
    mean.push_back(models::metric_value(r, -1, models::sla_metric::mean_wait_s));
    // The refusal and waiting shares are over counted users (none refused here).
    EXPECT_EQ(r.overall.refused_counted, 0u);
    EXPECT_LE(r.overall.censored_s.count(), r.overall.waiting_at_end);
  }
  auto w = sim::mean_interval(mean, 0.999);
  EXPECT_TRUE(w.contains(wq)) << w.mean << " +- " << w.half_width << " vs " << wq;
}
