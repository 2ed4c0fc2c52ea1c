// The search past a plan's grid with fake predicates, and the fluid lower bound against its
// closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "models/planning/capacity.hpp"
#include "models/scenario/scenario.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using namespace waitroom::models::planning;

namespace {

// Holds from `least` up; counts the calls per value.
struct threshold {
  double least;
  std::map<double, int> calls;
  bool operator()(double v) {
    ++calls[v];
    return v >= least;
  }
};

}  // namespace

TEST(PlanningCapacity, DoublesPastTheGridThenBisectsToThreeFigures) {
  threshold t{246.3, {}};
  const auto c = least_capacity(200, false, std::ref(t));
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.holds_at, 247);
  EXPECT_EQ(c.fails_at, 246);
  EXPECT_EQ(c.step, 1);
  EXPECT_EQ(c.tried.front(), 400);  // the first doubling
  for (const auto& [v, n] : t.calls) EXPECT_EQ(n, 1) << v;
  EXPECT_EQ(t.calls.size(), c.tried.size());
  // From 80 the step is 0.1: 160 fails, 320 holds, then 11 halvings of 1,600 tenths.
  threshold u{245.69, {}};
  const auto d = least_capacity(80, false, std::ref(u));
  EXPECT_DOUBLE_EQ(d.holds_at, 245.7);
  EXPECT_DOUBLE_EQ(d.fails_at, 245.6);
  EXPECT_LE(d.tried.size(), 2u + 11u);
  EXPECT_EQ(fmt::format("{}", d.holds_at), "245.7");  // prints as written
}

TEST(PlanningCapacity, AnIntegerKnobStepsByWholeNumbersAndTheCeilingIsReported) {
  threshold t{13, {}};
  const auto c = least_capacity(5, true, std::ref(t));
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.holds_at, 13);
  EXPECT_EQ(c.fails_at, 12);
  EXPECT_EQ(c.step, 1);
  threshold never{1e300, {}};
  const auto n = least_capacity(5, true, std::ref(never), 4);
  EXPECT_FALSE(n.found);
  EXPECT_EQ(n.tried, (std::vector<double>{10, 20, 40, 80}));
  EXPECT_EQ(n.fails_at, 80);
  threshold from_zero{3, {}};
  const auto z = least_capacity(0, true, std::ref(from_zero));
  EXPECT_EQ(z.holds_at, 3);
  EXPECT_EQ(z.fails_at, 2);
}

TEST(PlanningCapacity, FluidWaitsMatchTheirClosedForm) {
  // One burst of N = 45,000 at 375/s served at c < 375 from 0: user x waits x (1/c - 1/375),
  // so the mean is N/2 of that and the 95th percentile 0.95 N.
  const std::vector<sim::rate_segment> burst{{120, 2500}};
  const double c = 246, slope = 1 / c - 1 / 375.0, n = 45000;
  const auto w = fluid_wait(burst, 0.15, 0, c, 0.95);
  EXPECT_NEAR(w.mean_s, n / 2 * slope, 1e-6 * n * slope);
  EXPECT_NEAR(w.quantile_s, 0.95 * n * slope, n * slope / 20000);  // one sample's spacing
  // Served faster than they come: nobody waits; unless the first release is later.
  EXPECT_NEAR(fluid_wait(burst, 0.15, 0, 400, 0.95).mean_s, 0, 1e-9);
  const auto late = fluid_wait(burst, 0.15, 200, 400, 0.5);
  EXPECT_NEAR(late.mean_s, 200 + n / 2 * (1 / 400.0 - 1 / 375.0), 1e-6);
  // A quiet gap longer than the backlog takes to clear: the second burst starts afresh.
  // Each burst of 600 at 10/s served at 5/s: user x of it waits x / 10.
  const std::vector<sim::rate_segment> gap{{60, 10}, {100, 0}, {60, 10}};
  const auto g = fluid_wait(gap, 1, 0, 5, 0.95);
  EXPECT_NEAR(g.mean_s, 30, 1e-6);
  EXPECT_NEAR(g.quantile_s, 57, 600.0 / 10 / 10000);
}

TEST(PlanningCapacity, TheFluidBoundIsTheVipsAloneAtTheirArrivalRate) {
  auto j =
      models::read_json_file(testing_support::source_path("scenarios/sneaker_capacity_plan.json"));
  auto load = [&] { return models::parse_scenario(j, "sneaker", "."); };
  // The VIPs' 95th percentile user arrives at 114 s, is the 42,750th and is released at
  // 0.2 s (the first tick) + 42,750 / c: 60 s of wait needs c = 42,750 / (174 - 0.2).
  const auto bound = fluid_least_rate(load());
  ASSERT_TRUE(bound);
  EXPECT_NEAR(*bound, 42750 / (174 - 0.2), 0.01 * 42750 / (174 - 0.2) / 100);
  // Give-ups in the VIP class: the model does not apply to its target; the normal one's
  // (255,000 at 2,125/s, p95 at most 20 min) asks 242,250 / (1314 - 0.2).
  j["classes"][0]["patience_s"] = {{"dist", "exponential"}, {"mean", 600}};
  EXPECT_NEAR(*fluid_least_rate(load()), 242250 / (1314 - 0.2), 0.01 * 184.4 / 100);
  j["classes"][1]["patience_s"] = {{"dist", "exponential"}, {"mean", 600}};
  EXPECT_EQ(fluid_least_rate(load()), std::nullopt);
  // A target out of reach at any rate is left out: from a first tick at 300 s every VIP
  // waits over 180 s. The normal one's p95 user waits 300 + 242,250 / c - 114.
  j = models::read_json_file(testing_support::source_path("scenarios/sneaker_capacity_plan.json"));
  j["release"]["first_tick_s"] = 300;
  EXPECT_NEAR(*fluid_least_rate(load()), 242250 / (1200 - 300 + 114.0), 0.01 * 238.9 / 100);
  j["sla"]["targets"][1]["max"] = 100;
  EXPECT_EQ(fluid_least_rate(load()), std::nullopt);
}

TEST(PlanningCapacity, OnlyKnobsThatAddReleaseCapacityAreSearched) {
  EXPECT_EQ(capacity_unit("/release/rate_per_s"), "users/s");
  EXPECT_EQ(capacity_unit("/release/batch"), "users a tick");
  EXPECT_EQ(capacity_unit("/release/selection/weights/0"), std::nullopt);
  EXPECT_EQ(capacity_unit("/release/interval_ms"), std::nullopt);  // larger is less
}
