// Replications and SLA decisions.
#include <gtest/gtest.h>

#include "models/run/replicate.hpp"
#include "models/sla/sla.hpp"
#include "reports/report.hpp"
#include "sim/input_error.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {
const std::string clinic = R"({"name": "c", "seed": 3,
  "classes": [{"name": "vip", "share": 0.2, "offset_ms": 10000}, {"name": "normal", "share": 0.8}],
  "arrivals": {"process": "piecewise", "segments": [{"duration_s": 300, "rate_per_s": 25}],
               "backlog_users": 500},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 6},
  "sla": {"replications": 8, "targets": [{"class": "vip", "metric": "mean_wait_s", "max": 20},
                                         {"metric": "p99_wait_s", "max": 0.001}]}})";
}  // namespace

TEST(Replications, SameResultWhateverTheThreadCount) {
  auto s = scenario_from(clinic);
  auto one = models::replicate(s, 3, 8, 1);
  auto two = models::replicate(s, 3, 8, 2);
  auto many = models::replicate(s, 3, 8, 7);
  auto dump = [&](const std::vector<models::room_result>& rs) {
    return reports::replications_json(s, rs, 0.95, "test").dump();
  };
  EXPECT_EQ(dump(one), dump(two));
  EXPECT_EQ(dump(one), dump(many));
  // Replication r is the same run as run_scenario(s, seed, r).
  EXPECT_EQ(one[5].overall.wait_s.mean(), models::run_scenario(s, 3, 5).overall.wait_s.mean());
  EXPECT_NE(one[0].overall.wait_s.mean(), one[1].overall.wait_s.mean());
}

TEST(Replications, SlaDecidesOnTheConfidenceBound) {
  auto s = scenario_from(clinic);
  auto rs = models::replicate(s, 3, s.sla->replications, 2);
  auto outcomes = models::evaluate(*s.sla, rs);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_TRUE(outcomes[0].pass);   // VIPs wait about a second
  EXPECT_FALSE(outcomes[1].pass);  // nobody's p99 is a millisecond
  // A limit between the point estimate and the upper bound fails: the bound decides.
  models::sla_spec tight = *s.sla;
  tight.targets.resize(1);
  const auto& iv = outcomes[0].estimate;
  ASSERT_GT(iv.half_width, 0.0);
  tight.targets[0].max = iv.mean + iv.half_width / 2;
  EXPECT_FALSE(models::evaluate(tight, rs)[0].pass);
  tight.targets[0].max = iv.hi() + 1e-9;
  EXPECT_TRUE(models::evaluate(tight, rs)[0].pass);
  // min targets use the lower bound.
  tight.targets[0].max.reset();
  tight.targets[0].min = iv.lo() - 1e-9;
  EXPECT_TRUE(models::evaluate(tight, rs)[0].pass);
  tight.targets[0].min = iv.mean;
  EXPECT_FALSE(models::evaluate(tight, rs)[0].pass);
}

TEST(Replications, SlaBlocksAreValidated) {
  auto bad = [&](const std::string& sla, const std::string& message) {
    auto j = models::parse_json_text(clinic, "test.json");
    j["sla"] = models::parse_json_text(sla, "sla");
    try {
      models::parse_scenario(j, "test.json", ".");
      ADD_FAILURE() << sla;
    } catch (const sim::input_error& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  bad(R"({"targets": [{"class": "gold", "metric": "mean_wait_s", "max": 1}]})",
      "test.json: /sla/targets/0/class: expected one of: all, vip, normal, found a string "
      "(\"gold\")");
  bad(R"({"targets": [{"metric": "mean_wait", "max": 1}]})",
      "test.json: /sla/targets/0/metric: expected one of: mean_wait_s, p50_wait_s, p90_wait_s, "
      "p95_wait_s, p99_wait_s, p999_wait_s, max_wait_s, refused_share, waiting_at_end_share, "
      "abandoned_share, eta_mae_s, rank_moved_back_share, redis_peak_per_s, backend_p95_rt_s, "
      "backend_error_rate, redis_memory_mb, found a string (\"mean_wait\") (did you mean "
      "'mean_wait_s'?)");
  bad(R"({"targets": [{"metric": "eta_mae_s", "max": 1}]})",
      "test.json: /sla/targets/0/metric: expected a metric the scenario can measure "
      "('eta_mae_s' needs a polling block), found eta_mae_s");
  bad(R"({"targets": [{"metric": "mean_wait_s"}]})",
      "test.json: /sla/targets/0/max: expected a 'max' or a 'min' limit, found neither");
  bad(R"({"replications": 1, "targets": [{"metric": "mean_wait_s", "max": 1}]})",
      "test.json: /sla/replications: expected an integer from 2 to 100000, found a number (1)");
}

TEST(Warmup, DropsTheFirstCustomersOrTheEarlyArrivals) {
  // 10 users at t = 0 and 5 at t = 1, 3 released every 200 ms from 200 ms.
  auto make = [](const std::string& warmup) {
    return scenario_from(R"({"name": "w", "classes": [{"name": "all"}],
      "arrivals": {"process": "piecewise", "segments": [{"duration_s": 2, "rate_per_s": 0}],
                   "backlog_users": 10},
      "queue": {"policy": "fifo"},
      "release": {"mode": "tick", "interval_ms": 200, "batch": 3},
      "run": {)" + warmup +
                         R"(}})");
  };
  // Waits 0.2 x3, 0.4 x3, 0.6 x3, 0.8: dropping the first 3 leaves (1.2 + 1.8 + 0.8) / 7.
  auto by_count = models::run_scenario(make(R"("warmup_customers": 3)"), 1);
  EXPECT_EQ(by_count.warmup_dropped, 3u);
  EXPECT_EQ(by_count.overall.wait_s.count(), 7u);
  EXPECT_EQ(by_count.overall.released, 10u);  // released counts everyone
  EXPECT_NEAR(by_count.overall.wait_s.mean(), (3 * 0.4 + 3 * 0.6 + 0.8) / 7, 1e-12);
  // Everyone entered at t = 0: a warm-up of any time drops them all.
  auto by_time = models::run_scenario(make(R"("warmup_s": 0.1)"), 1);
  EXPECT_EQ(by_time.overall.wait_s.count(), 0u);
  EXPECT_EQ(by_time.warmup_dropped, 10u);
}

TEST(Warmup, MserRemovesAnOpeningBacklogsBias) {
  // M/M/1 (lambda 0.5, mu 1, Wq = 1.0) that opens with 300 users waiting: the backlog takes
  // about 600 s to clear and inflates the run's mean wait several-fold. MSER-5 truncates it.
  auto make = [](const std::string& warmup) {
    return scenario_from(R"({"name": "mser", "classes": [{"name": "all"}],
      "arrivals": {"process": "poisson", "rate_per_s": 0.5, "backlog_users": 300},
      "queue": {"policy": "fifo", "time_unit": "us"},
      "release": {"mode": "concurrency", "slots": 1, "session_s": {"dist": "exponential", "mean": 1}},
      "run": {"horizon_s": 20000, "sample_interval_s": 1000)" +
                         warmup + R"(}})");
  };
  auto raw = make(""), mser = make(R"(, "warmup": "mser5")");
  std::vector<double> raw_means, mser_means;
  for (std::uint64_t rep = 0; rep < 20; ++rep) {
    raw_means.push_back(models::run_scenario(raw, 1, rep).overall.wait_s.mean());
    auto r = models::run_scenario(mser, 1, rep);
    ASSERT_TRUE(r.mser_truncation);
    EXPECT_GT(*r.mser_truncation, 300u);  // at least the backlog itself
    mser_means.push_back(r.overall.wait_s.mean());
  }
  auto biased = sim::mean_interval(raw_means, 0.999);
  auto truncated = sim::mean_interval(mser_means, 0.999);
  EXPECT_GT(biased.lo(), 2.0) << biased.mean;  // the transient dominates
  EXPECT_TRUE(truncated.contains(1.0)) << truncated.mean << " +- " << truncated.half_width;
}

TEST(Warmup, MserTruncationFindsTheKnee) {
  std::vector<double> y(200, 1.0);
  for (std::size_t i = 0; i < 30; ++i) y[i] = 100.0 - 3.0 * static_cast<double>(i);
  for (std::size_t i = 30; i < y.size(); ++i) y[i] += (i % 2 ? 0.1 : -0.1);
  EXPECT_EQ(models::mser_truncation(y), 30u);
  EXPECT_EQ(models::mser_truncation({1.0, 2.0}), 0u);
}
