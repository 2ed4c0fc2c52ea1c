// Abandonment by hand: a patience schedules one k_abandon for the user at its end (never in
// the past), a class without one schedules nothing, and the pay-later share follows the
// class's probability (binomial tolerance), the same for the same seed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/events.hpp"
#include "models/visits/abandonment.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

// vip: no patience; normal: `patience` and `pay_later`.
models::scenario with_patience(const std::string& patience, double pay_later = 0) {
  return scenario_from(
      R"({"name": "abandonment",
    "classes": [{"name": "vip", "share": 0.5},
                {"name": "normal", "share": 0.5, "patience_s": )" +
      patience + R"(, "pay_later_probability": )" + std::to_string(pay_later) +
      R"(}], "arrivals": {"process": "poisson", "rate_per_s": 1}, "run": {"horizon_s": 1000},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}})");
}

struct rig {
  explicit rig(const models::scenario& sc, std::uint64_t seed = 1)
      : s(sc), a(s.classes, sim, seed, 0) {}
  void handle(const sim::event& e) {
    if (e.kind == models::k_abandon) gave_up.push_back({sim.now().seconds(), e.arg});
  }
  bool done() const { return false; }

  models::scenario s;
  sim::simulator sim;
  models::abandonment a;
  std::vector<std::pair<double, std::uint32_t>> gave_up;  // (time, user)
};

}  // namespace

TEST(Abandonment, APatienceEndsInOneEventForTheUser) {
  rig r(with_patience(R"({"dist": "deterministic", "value": 30})"));
  r.a.entered(7, 1);
  r.a.entered(8, 0);  // vip: no patience, no event
  r.a.entered(9, 1);
  EXPECT_EQ(r.sim.queue().size(), 2u);
  r.sim.run(r, {});
  EXPECT_EQ(r.gave_up, (std::vector<std::pair<double, std::uint32_t>>{{30, 7}, {30, 9}}));
}

// A normal patience of mean 0 draws negative times half the time: they give up at once.
TEST(Abandonment, ANegativePatienceGivesUpAtOnceNotInThePast) {
  rig r(with_patience(R"({"dist": "normal", "mean": 0, "stddev": 5})"));
  r.sim.schedule(sim::sim_time::from_seconds(100), models::p_control, models::k_tick);
  r.sim.run(r, {});  // now = 100 s
  for (std::uint32_t u = 0; u < 200; ++u) r.a.entered(u, 1);
  r.sim.run(r, {});
  ASSERT_EQ(r.gave_up.size(), 200u);
  int at_once = 0;
  for (const auto& [t, u] : r.gave_up) {
    EXPECT_GE(t, 100.0);
    at_once += t == 100.0;
  }
  EXPECT_GT(at_once, 50);  // about 100 of 200
  EXPECT_LT(at_once, 150);
}

TEST(Abandonment, PayingLaterFollowsTheClasssProbability) {
  constexpr std::uint32_t n = 100'000;
  for (double p : {0.0, 0.3, 1.0}) {
    rig r(with_patience(R"({"dist": "exponential", "mean": 60})", p));
    std::uint64_t paid = 0;
    for (std::uint32_t u = 0; u < n; ++u) paid += r.a.pays_later(u, 1);
    const double sd = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(static_cast<double>(paid) / n, p, 5 * sd + 1e-12) << "p = " << p;
    std::uint64_t vip_paid = 0;  // no pay-later probability: never
    for (std::uint32_t u = 0; u < 1000; ++u) vip_paid += r.a.pays_later(u, 0);
    EXPECT_EQ(vip_paid, 0u);
  }
}

TEST(Abandonment, WhoPaysLaterDependsOnTheSeedOnly) {
  const auto s = with_patience(R"({"dist": "exponential", "mean": 60})", 0.5);
  rig a(s, 1), b(s, 1), c(s, 2);
  std::vector<bool> pa, pb, pc;
  for (std::uint32_t u = 0; u < 200; ++u) {
    pa.push_back(a.a.pays_later(u, 1));
    pb.push_back(b.a.pays_later(u, 1));
    pc.push_back(c.a.pays_later(u, 1));
  }
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
}
