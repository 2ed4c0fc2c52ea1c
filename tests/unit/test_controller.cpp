// The release-rate controllers, step by step: fixed, tiered (bounded steps, held cuts, the
// floor) and window (up, down, ceiling, floor, the window's edge).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/release/controller.hpp"
#include "sim/time.hpp"

using namespace waitroom::models;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

controller_spec tiered() {
  controller_spec c;
  c.kind = controller_kind::tiered;
  c.tiers_ms = {200, 500, 1000};
  c.factors = {1.2, 1.0, 0.7, 0.4};
  c.max_step = 0.1;
  c.hold_rounds = 2;
  c.floor = 1;
  return c;
}

controller_spec window() {
  controller_spec c;
  c.kind = controller_kind::window;
  c.every_s = 5;
  c.window_s = 10;
  c.low_ms = 200;
  c.high_ms = 500;
  c.up = 0.1;
  c.down = 0.2;
  c.floor = 1;
  c.ceiling = 0;  // twice the batch
  return c;
}

}  // namespace

TEST(FixedController, AlwaysTheBatchAndTheRoundsMeanRt) {
  controller_spec c;
  rate_controller rc(c, 7);
  EXPECT_EQ(rc.tick_batch(), 7u);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 0.0);
  rc.observe(s_ns, 100);
  rc.observe(s_ns, 300);
  EXPECT_EQ(rc.tick_batch(), 7u);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 200.0);
  EXPECT_EQ(rc.tick_batch(), 7u);  // a round without completions keeps the last RT
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 200.0);
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 7.0);
}

TEST(TieredController, StepsByHand) {
  const auto spec = tiered();
  rate_controller rc(spec, 100);
  // No RT yet (0 ms): tier 0, target 120, at most 10% of the rate a tick.
  EXPECT_EQ(rc.tick_batch(), 110u);  // 100 + 10
  EXPECT_EQ(rc.tick_batch(), 120u);  // min(120, 110 + 11)
  EXPECT_EQ(rc.tick_batch(), 120u);  // at the target
  // A round with RTs 600 and 800 (mean 700 ms): tier 2, target 70. Four ticks since the
  // start, more than hold_rounds: cut by 10% of 120.
  rc.observe(4 * s_ns, 600);
  rc.observe(4 * s_ns, 800);
  EXPECT_EQ(rc.tick_batch(), 108u);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 700.0);
  // No completions since: the last RT (700) still rules; the cut is held two ticks.
  EXPECT_EQ(rc.tick_batch(), 108u);
  EXPECT_EQ(rc.tick_batch(), 108u);
  EXPECT_EQ(rc.tick_batch(), 97u);  // 108 - 10.8 = 97.2
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 97.2);
  EXPECT_EQ(rc.tick_batch(), 97u);
  EXPECT_EQ(rc.tick_batch(), 97u);
  EXPECT_EQ(rc.tick_batch(), 87u);  // 97.2 - 9.72 = 87.48
  EXPECT_NEAR(rc.users_per_tick(), 87.48, 1e-12);
  // RT back to 100 ms: tier 0, target 120; raises are not held.
  rc.observe(11 * s_ns, 100);
  EXPECT_EQ(rc.tick_batch(), 96u);  // 87.48 + 8.748 = 96.228
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 100.0);
  EXPECT_EQ(rc.tick_batch(), 106u);  // 96.228 + 9.6228 = 105.8508
}

TEST(TieredController, TierEdgesBelongToTheSlowerTier) {
  const auto spec = tiered();
  // RT exactly 500 ms is tier 2 (factor 0.7), not tier 1 (factor 1.0, no change).
  rate_controller rc(spec, 100);
  for (int i = 0; i < 3; ++i) rc.observe(0, 500);
  rc.tick_batch();  // since_cut 1: a cut is held
  rc.tick_batch();  // 2
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 100.0);
  EXPECT_EQ(rc.tick_batch(), 90u);  // 3 > hold_rounds: 100 - 10
  // 499.999 ms is tier 1: target 100, a raise back by at most 9.
  rc.observe(0, 499.999);
  EXPECT_EQ(rc.tick_batch(), 99u);  // min(100, 90 + 9)
}

TEST(TieredController, TheFloorHoldsTheRateUp) {
  auto spec = tiered();
  spec.max_step = 1.0;  // a whole rate a tick
  spec.hold_rounds = 0;
  spec.floor = 6;
  rate_controller rc(spec, 10);
  rc.observe(0, 2000);             // tier 3: target 4
  EXPECT_EQ(rc.tick_batch(), 6u);  // max(4, 10 - 10) = 4, then the floor
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 6.0);
  EXPECT_EQ(rc.tick_batch(), 6u);
}

TEST(WindowController, UpDownAndAnEmptyWindowChangesNothing) {
  const auto spec = window();
  rate_controller rc(spec, 100);
  rc.observe(1 * s_ns, 100);
  rc.look(5 * s_ns);  // mean 100 < 200: +10%
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 110.0);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 100.0);
  rc.look(10 * s_ns);  // the same window
  EXPECT_NEAR(rc.users_per_tick(), 121.0, 1e-12);
  rc.observe(11 * s_ns, 900);
  rc.look(15 * s_ns);  // the 1 s response left the window: mean 900 > 500, -20%
  EXPECT_NEAR(rc.users_per_tick(), 96.8, 1e-12);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 900.0);
  rc.observe(16 * s_ns, 300);
  rc.look(20 * s_ns);  // mean (900 + 300) / 2 = 600: -20%
  EXPECT_NEAR(rc.users_per_tick(), 77.44, 1e-12);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 600.0);
  rc.look(25 * s_ns);  // only 300 left: between low and high, no change
  EXPECT_NEAR(rc.users_per_tick(), 77.44, 1e-12);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 300.0);
  rc.look(40 * s_ns);  // empty window: no change, the last RT kept
  EXPECT_NEAR(rc.users_per_tick(), 77.44, 1e-12);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 300.0);
  // The tick takes the rate as it is (the round's RT does not feed the window form).
  rc.observe(41 * s_ns, 5000);
  EXPECT_EQ(rc.tick_batch(), 77u);
  EXPECT_DOUBLE_EQ(rc.last_rt_ms(), 300.0);
}

TEST(WindowController, AResponseExactlyWindowOldStillCounts) {
  const auto spec = window();
  rate_controller rc(spec, 100);
  rc.observe(0, 1000);
  rc.look(10 * s_ns);  // at now - window_s: kept, -20%
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 80.0);
  rc.look(10 * s_ns + 1);  // one nanosecond later it is gone
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 80.0);
}

TEST(WindowController, CeilingIsTwiceTheBatchByDefaultOrAsSet) {
  auto spec = window();
  rate_controller rc(spec, 100);
  rc.observe(0, 50);
  for (int i = 1; i <= 9; ++i) rc.look(i * s_ns);  // 100 x 1.1^8 = 214 > 200
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 200.0);
  EXPECT_EQ(rc.tick_batch(), 200u);
  spec.ceiling = 150;
  rate_controller capped(spec, 100);
  capped.observe(0, 50);
  for (int i = 1; i <= 5; ++i) capped.look(i * s_ns);  // 100 x 1.1^5 = 161 > 150
  EXPECT_DOUBLE_EQ(capped.users_per_tick(), 150.0);
}

TEST(WindowController, TheFloorStopsTheCuts) {
  auto spec = window();
  spec.floor = 30;
  rate_controller rc(spec, 100);
  rc.observe(0, 5000);
  for (int i = 1; i <= 6; ++i) rc.look(i * s_ns);  // 100 x 0.8^6 = 26.2 < 30
  EXPECT_DOUBLE_EQ(rc.users_per_tick(), 30.0);
  EXPECT_EQ(rc.tick_batch(), 30u);
}
