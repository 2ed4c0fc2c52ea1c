// The engine against queueing theory. Each statistic is estimated from R independent
// replications; the tolerance is the 99.9% Student-t interval of those replications (a
// false failure rate of 0.1% per assertion with fresh seeds; the seeds are fixed, so the
// outcome is deterministic). Replications start empty, a bias far below the interval
// width at these run lengths (relaxation times are tens of seconds, runs 10^5 s).
#include <gtest/gtest.h>

#include <cmath>

#include "models/analytic/queueing.hpp"
#include "models/room/room.hpp"
#include "sim/confidence.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

constexpr double level = 0.999;
constexpr int replications = 30;

double erlang_c(int c, double a) {
  // Probability that an arrival waits in M/M/c with offered load a = lambda / mu.
  double term = 1.0, sum = 0.0;
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  double last = term * c / (c - a);  // a^c / c! * 1 / (1 - rho)
  return last / (sum + last);
}

std::string mmc_json(double lambda, int c, double horizon) {
  return R"({"name": "mmc", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": )" +
         std::to_string(lambda) + R"(},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": )" +
         std::to_string(c) + R"(,
                "session_s": {"dist": "exponential", "mean": 1.0}},
    "run": {"horizon_s": )" +
         std::to_string(horizon) + R"(, "sample_interval_s": 1000}})";
}

struct replicated {
  std::vector<std::vector<double>> mean_wait;  // per class
  std::vector<double> p_wait;                  // overall P(wait > 0)
};

// Little's law on the sample path of every run: the area under the queue-length curve
// equals the completed waits plus the waits of those still queued at the end.
void check_little(const models::room_result& r) {
  double completed = r.overall.wait_s.mean() * static_cast<double>(r.overall.wait_s.count()) +
                     r.overall.abandon_s.mean() * static_cast<double>(r.overall.abandon_s.count());
  double area = r.queue_length_area;
  EXPECT_NEAR(area, completed + r.censored_wait_s, 1e-9 * area + 1e-9);
  // And L = lambda W, up to the users still waiting at the end (bounded, not fitted).
  // W is the time in queue of everyone who left it, released or given up.
  double T = r.end_time_s;
  double left = static_cast<double>(r.overall.wait_s.count() + r.overall.abandon_s.count());
  double w = left > 0 ? completed / left : 0.0;
  double lambda_w = static_cast<double>(r.overall.arrived) / T * w;
  double slack = (r.censored_wait_s + static_cast<double>(r.overall.waiting_at_end) * w) / T;
  EXPECT_LE(std::abs(r.mean_queue_length() - lambda_w), slack + 1e-9 * area);
}

replicated replicate(const models::scenario& s) {
  replicated out;
  out.mean_wait.resize(s.classes.size());
  for (int rep = 0; rep < replications; ++rep) {
    models::room_result r = models::run_scenario(s, s.seed, static_cast<std::uint64_t>(rep));
    for (std::size_t c = 0; c < s.classes.size(); ++c)
      out.mean_wait[c].push_back(r.by_class[c].wait_s.mean());
    const auto& h = r.overall.wait_ns;
    out.p_wait.push_back(1.0 - static_cast<double>(h.bucket(0)) / static_cast<double>(h.count()));
    check_little(r);
  }
  return out;
}

}  // namespace

TEST(TheoryTools, StudentTQuantilesMatchTables) {
  EXPECT_NEAR(sim::student_t_quantile(0.975, 10), 2.228139, 1e-5);
  EXPECT_NEAR(sim::student_t_quantile(0.9995, 29), 3.659405, 1e-5);
  EXPECT_NEAR(sim::student_t_quantile(0.975, 1000), 1.962339, 1e-5);
  EXPECT_NEAR(erlang_c(1, 0.8), 0.8, 1e-12);  // M/M/1: P(wait) = rho
  EXPECT_NEAR(erlang_c(2, 1.0), 1.0 / 3.0, 1e-12);
}

TEST(QueueingTheory, MM1MeanWaitAndProbabilityOfWaiting) {
  auto s = scenario_from(mmc_json(0.8, 1, 100000));
  auto r = replicate(s);
  auto w = sim::mean_interval(r.mean_wait[0], level);
  auto p = sim::mean_interval(r.p_wait, level);
  const double wq = 0.8 / (1.0 - 0.8);  // rho / (mu - lambda) = 4.0
  EXPECT_TRUE(w.contains(wq)) << w.mean << " +- " << w.half_width << " vs " << wq;
  EXPECT_TRUE(p.contains(0.8)) << p.mean << " +- " << p.half_width;
  EXPECT_LT(w.half_width, 0.05 * wq);  // the test has power: the interval is narrow
}

TEST(QueueingTheory, MMcMatchesErlangC) {
  const double lambda = 3.5;
  const int c = 4;
  auto s = scenario_from(mmc_json(lambda, c, 60000));
  auto r = replicate(s);
  double pc = erlang_c(c, lambda);
  double wq = pc / (c - lambda);
  auto w = sim::mean_interval(r.mean_wait[0], level);
  auto p = sim::mean_interval(r.p_wait, level);
  EXPECT_TRUE(w.contains(wq)) << w.mean << " +- " << w.half_width << " vs " << wq;
  EXPECT_TRUE(p.contains(pc)) << p.mean << " +- " << p.half_width << " vs " << pc;
  EXPECT_LT(w.half_width, 0.05 * wq);
}

TEST(QueueingTheory, TwoClassPriorityMatchesCobham) {
  // lambda1 = 0.2 (level 0), lambda2 = 0.6 (level 1), mu = 1, non-preemptive.
  auto s = scenario_from(R"({"name": "prio",
    "classes": [{"name": "vip", "share": 0.25, "level": 0}, {"name": "normal", "share": 0.75, "level": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 0.8},
    "queue": {"policy": "level", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "exponential", "mean": 1.0}},
    "run": {"horizon_s": 100000, "sample_interval_s": 1000}})");
  auto r = replicate(s);
  const double w0 = 0.8 * 2.0 / 2.0;                   // sum lambda_i E[S^2] / 2
  const double w1 = w0 / (1.0 - 0.2);                  // 1.0
  const double w2 = w0 / ((1.0 - 0.2) * (1.0 - 0.8));  // 5.0
  auto v = sim::mean_interval(r.mean_wait[0], level);
  auto n = sim::mean_interval(r.mean_wait[1], level);
  EXPECT_TRUE(v.contains(w1)) << v.mean << " +- " << v.half_width << " vs " << w1;
  EXPECT_TRUE(n.contains(w2)) << n.mean << " +- " << n.half_width << " vs " << w2;
  EXPECT_LT(n.half_width, 0.05 * w2);
}

TEST(QueueingTheory, MD1MeanWaitMatchesPollaczekKhinchine) {
  // Deterministic service checks the second moment path: Wq = lambda E[S^2] / (2 (1 - rho)).
  auto s = scenario_from(R"({"name": "md1", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 0.7},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "deterministic", "value": 1.0}},
    "run": {"horizon_s": 60000, "sample_interval_s": 1000}})");
  auto r = replicate(s);
  const double wq = 0.7 * 1.0 / (2.0 * 0.3);
  auto w = sim::mean_interval(r.mean_wait[0], level);
  EXPECT_TRUE(w.contains(wq)) << w.mean << " +- " << w.half_width << " vs " << wq;
}

TEST(QueueingTheory, MMcWithAbandonmentMatchesErlangA) {
  // M/M/2+M: lambda 2.2, mu 1, patience exponential with mean 2 s (theta 0.5). A birth-death
  // chain: up at lambda, down at min(n, c) mu + max(n - c, 0) theta. P(abandon) =
  // theta E[Nq] / lambda; mean time in queue over everyone = E[Nq] / lambda.
  const double lambda = 2.2, theta = 0.5;
  const int c = 2;
  std::vector<double> p{1.0};
  for (int n = 0; n < 400; ++n)
    p.push_back(p.back() * lambda / (std::min(n + 1, c) * 1.0 + std::max(n + 1 - c, 0) * theta));
  double total = 0, nq = 0;
  for (std::size_t n = 0; n < p.size(); ++n) total += p[n];
  for (std::size_t n = 0; n < p.size(); ++n)
    nq += std::max<double>(static_cast<double>(n) - c, 0) * p[n] / total;
  const double p_abandon = theta * nq / lambda, time_in_queue = nq / lambda;

  auto s = scenario_from(R"({"name": "erlang-a",
    "classes": [{"name": "all", "patience_s": {"dist": "exponential", "mean": 2}}],
    "arrivals": {"process": "poisson", "rate_per_s": 2.2},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 2, "session_s": {"dist": "exponential", "mean": 1}},
    "run": {"horizon_s": 50000, "sample_interval_s": 1000}})");
  std::vector<double> abandon_share, queue_time, waited;
  for (int rep = 0; rep < replications; ++rep) {
    auto r = models::run_scenario(s, s.seed, static_cast<std::uint64_t>(rep));
    const auto& w = r.overall;
    abandon_share.push_back(static_cast<double>(w.abandoned) / static_cast<double>(w.arrived));
    // Everyone who gave up had waited; a released user waited unless its wait was 0 ns.
    const double left = static_cast<double>(w.wait_ns.count() + w.abandon_s.count());
    waited.push_back(1.0 - static_cast<double>(w.wait_ns.bucket(0)) / left);
    double sum = w.wait_s.mean() * static_cast<double>(w.wait_s.count()) +
                 w.abandon_s.mean() * static_cast<double>(w.abandon_s.count());
    queue_time.push_back(sum / static_cast<double>(w.wait_s.count() + w.abandon_s.count()));
    check_little(r);
  }
  auto pa = sim::mean_interval(abandon_share, level);
  auto tq = sim::mean_interval(queue_time, level);
  EXPECT_TRUE(pa.contains(p_abandon)) << pa.mean << " +- " << pa.half_width << " vs " << p_abandon;
  EXPECT_TRUE(tq.contains(time_in_queue))
      << tq.mean << " +- " << tq.half_width << " vs " << time_in_queue;
  EXPECT_GT(p_abandon, 0.05);  // the test has teeth: a tenth of users give up
  double busy = 0;             // P(N >= c) of the same chain: an arrival finds every server busy
  for (std::size_t n = c; n < p.size(); ++n) busy += p[n] / total;
  auto pw = sim::mean_interval(waited, level);
  EXPECT_TRUE(pw.contains(busy)) << pw.mean << " +- " << pw.half_width << " vs " << busy;
  EXPECT_NEAR(models::erlang_a(c, lambda, 1.0, 1.0 / theta).p_wait, busy, 1e-9 * busy);
}

TEST(QueueingTheorySlow, TickReleaseMatchesItsMarkovChain) {
  // Poisson 27/s, 6 released every 200 ms (30/s): rho = 0.9.
  auto s = scenario_from(R"({"name": "tick",
    "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 27},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 6},
    "run": {"horizon_s": 20000, "sample_interval_s": 1000}})");
  auto chain = models::tick_release_chain(27, 0.2, 6);
  ASSERT_TRUE(chain);
  auto r = replicate(s);
  auto w = sim::mean_interval(r.mean_wait[0], level);
  EXPECT_TRUE(w.contains(chain->mean_wait_s))
      << w.mean << " +- " << w.half_width << " vs " << chain->mean_wait_s;
  EXPECT_LT(w.half_width, 0.05 * chain->mean_wait_s);
}

TEST(QueueingTheory, ThreeClassPriorityMMcMatchesCobhamWithErlangC) {
  // M/M/3, lambda = 2.4 split 0.2 / 0.3 / 0.5 over levels 0, 1, 2 (rho = 0.8).
  auto s = scenario_from(R"({"name": "prio-mmc",
    "classes": [{"name": "gold", "share": 0.2, "level": 0}, {"name": "silver", "share": 0.3, "level": 1},
                {"name": "normal", "share": 0.5, "level": 2}],
    "arrivals": {"process": "poisson", "rate_per_s": 2.4},
    "queue": {"policy": "level", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 3, "session_s": {"dist": "exponential", "mean": 1.0}},
    "run": {"horizon_s": 60000, "sample_interval_s": 1000}})");
  auto e = models::analytic_for(s);
  ASSERT_TRUE(e.estimate) << e.reason;
  EXPECT_EQ(e.estimate->model, "M/M/3 non-preemptive priority, 3 levels (Cobham with Erlang C)");
  auto r = replicate(s);
  for (std::size_t k = 0; k < 3; ++k) {
    auto w = sim::mean_interval(r.mean_wait[k], level);
    const double theory = e.estimate->mean_wait_s[k];
    EXPECT_TRUE(w.contains(theory))
        << k << ": " << w.mean << " +- " << w.half_width << " vs " << theory;
  }
  auto p = sim::mean_interval(r.p_wait, level);
  EXPECT_TRUE(p.contains(*e.estimate->p_wait)) << p.mean << " +- " << p.half_width;
  // The test has teeth: the classes' waits differ by far more than the intervals.
  EXPECT_GT(e.estimate->mean_wait_s[2], 3 * e.estimate->mean_wait_s[0]);
  EXPECT_LT(sim::mean_interval(r.mean_wait[2], level).half_width,
            0.05 * e.estimate->mean_wait_s[2]);
}

TEST(QueueingTheory, TwoClassPriorityMD1MatchesCobham) {
  auto s = scenario_from(R"({"name": "prio-md1",
    "classes": [{"name": "vip", "share": 0.25, "level": 0}, {"name": "normal", "share": 0.75, "level": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 0.8},
    "queue": {"policy": "level", "time_unit": "us"},
    "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "deterministic", "value": 1.0}},
    "run": {"horizon_s": 60000, "sample_interval_s": 1000}})");
  auto e = models::analytic_for(s);
  ASSERT_TRUE(e.estimate) << e.reason;
  const double w0 = 0.8 * 1.0 / 2.0;  // sum lambda_i E[S^2] / 2
  EXPECT_NEAR(e.estimate->mean_wait_s[0], w0 / 0.8, 1e-12);
  EXPECT_NEAR(e.estimate->mean_wait_s[1], w0 / (0.8 * 0.2), 1e-12);
  auto r = replicate(s);
  for (std::size_t k = 0; k < 2; ++k) {
    auto w = sim::mean_interval(r.mean_wait[k], level);
    const double theory = e.estimate->mean_wait_s[k];
    EXPECT_TRUE(w.contains(theory))
        << k << ": " << w.mean << " +- " << w.half_width << " vs " << theory;
  }
}

TEST(QueueingTheory, VipFirstTickReleaseMatchesItsChainsPerClass) {
  // Poisson 27/s, a fifth VIP (level 0), 6 released every 200 ms: VIPs first.
  auto s = scenario_from(R"({"name": "tick-vip",
    "classes": [{"name": "vip", "share": 0.2, "level": 0}, {"name": "normal", "share": 0.8, "level": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 27},
    "queue": {"policy": "level", "time_unit": "us"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 6},
    "run": {"horizon_s": 20000, "sample_interval_s": 1000}})");
  auto e = models::analytic_for(s);
  ASSERT_TRUE(e.estimate) << e.reason;
  ASSERT_FALSE(e.estimate->overall_only);
  auto r = replicate(s);
  for (std::size_t k = 0; k < 2; ++k) {
    auto w = sim::mean_interval(r.mean_wait[k], level);
    const double theory = e.estimate->mean_wait_s[k];
    EXPECT_TRUE(w.contains(theory))
        << k << ": " << w.mean << " +- " << w.half_width << " vs " << theory;
    EXPECT_LT(w.half_width, 0.05 * theory);
  }
  EXPECT_GT(e.estimate->mean_wait_s[1], 2 * e.estimate->mean_wait_s[0]);
}

TEST(QueueingTheory, RenewalArrivalsMatchTheGM1Root) {
  // D/M/1 and E_2/M/1 at rho = 0.8 (mu = 1): mean wait sigma / (mu (1 - sigma)) and
  // P(wait) = sigma, with sigma the root of sigma = A*(mu (1 - sigma)).
  for (std::string gap : {R"({"dist": "deterministic", "value": 1.25})",
                          R"({"dist": "erlang", "k": 2, "mean": 1.25})"}) {
    auto s = scenario_from(R"({"name": "gm1", "classes": [{"name": "all"}],
      "arrivals": {"process": "renewal", "interarrival_s": )" +
                           gap + R"(},
      "queue": {"policy": "fifo", "time_unit": "us"},
      "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "exponential", "mean": 1.0}},
      "run": {"horizon_s": 60000, "sample_interval_s": 1000}})");
    auto e = models::analytic_for(s);
    ASSERT_TRUE(e.estimate) << e.reason;
    const double sigma = *e.estimate->p_wait, wq = e.estimate->mean_wait_s[0];
    auto r = replicate(s);
    auto w = sim::mean_interval(r.mean_wait[0], level);
    auto p = sim::mean_interval(r.p_wait, level);
    EXPECT_TRUE(w.contains(wq)) << gap << ": " << w.mean << " +- " << w.half_width << " vs " << wq;
    EXPECT_TRUE(p.contains(sigma))
        << gap << ": " << p.mean << " +- " << p.half_width << " vs " << sigma;
    EXPECT_LT(w.half_width, 0.05 * wq);
    // The test has teeth: Poisson arrivals at the same rate wait 4 s, far outside.
    EXPECT_FALSE(w.contains(4.0));
  }
}
