// Replications and SLA decisions.
#include <gtest/gtest.h>

#include "models/room/replicate.hpp"
#include "models/sla/sla.hpp"
#include "reports/report.hpp"
#include "sim/core/input_error.hpp"
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
      "found a string (\"mean_wait\") (did you mean 'mean_wait_s'?)");
  bad(R"({"targets": [{"metric": "mean_wait_s"}]})",
      "test.json: /sla/targets/0/max: expected a 'max' or a 'min' limit, found neither");
  bad(R"({"replications": 1, "targets": [{"metric": "mean_wait_s", "max": 1}]})",
      "test.json: /sla/replications: expected an integer from 2 to 100000, found a number (1)");
}
