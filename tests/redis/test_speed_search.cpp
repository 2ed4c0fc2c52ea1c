// `load --speed max`'s search, with a fake probe whose limit is known (no server).
#include <cmath>

#include <gtest/gtest.h>

#include "redis/speed_search.hpp"

namespace {

using namespace waitroom::redis;

// Redis "keeps up" below `limit`; above it the latency p99 is over any limit.
load_probe keeps_up_below(double limit, std::vector<double>& speeds) {
  return [limit, &speeds](double speed) {
    speeds.push_back(speed);
    probe_outcome p;
    p.speed = speed;
    p.commands_per_s = 1000 * speed;
    p.completed = 1000;
    p.worst_p99_ms = speed <= limit ? 1.0 : 1e9;
    return p;
  };
}

TEST(SpeedSearch, DoublesThenBisectsToTheResolution) {
  std::vector<double> speeds;
  auto r = search_max_speed(keeps_up_below(37.0, speeds), {});
  ASSERT_TRUE(r.max_speed && r.failing_speed);
  EXPECT_LE(*r.max_speed, 37.0);
  EXPECT_GT(*r.failing_speed, 37.0);
  EXPECT_LE(*r.failing_speed / *r.max_speed, 1.25 + 1e-12);
  EXPECT_DOUBLE_EQ(r.max_commands_per_s, 1000 * *r.max_speed);
  // 1, 2, 4, ..., 64 (the first failure), then geometric midpoints.
  ASSERT_GE(speeds.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i)
    EXPECT_DOUBLE_EQ(speeds[i], std::ldexp(1.0, static_cast<int>(i)));
  EXPECT_DOUBLE_EQ(speeds[7], std::sqrt(32.0 * 64.0));
  EXPECT_NE(r.limited_by.find("latency p99"), std::string::npos) << r.limited_by;
  for (const auto& p : r.probes) EXPECT_EQ(p.passed, p.speed <= 37.0) << p.speed;
}

TEST(SpeedSearch, HalvesFromAFailingStart) {
  std::vector<double> speeds;
  auto r = search_max_speed(keeps_up_below(0.1, speeds), {});
  ASSERT_TRUE(r.max_speed && r.failing_speed);
  EXPECT_LE(*r.max_speed, 0.1);
  EXPECT_GT(*r.failing_speed, 0.1);
  EXPECT_DOUBLE_EQ(speeds[1], 0.5);
}

TEST(SpeedSearch, SaysWhenNoSpeedKeepsUpAndWhenNoLimitWasFound) {
  std::vector<double> speeds;
  auto none = search_max_speed(keeps_up_below(0.001, speeds), {});
  EXPECT_FALSE(none.max_speed);
  EXPECT_DOUBLE_EQ(speeds.back(), 1.0 / 64);
  EXPECT_EQ(speeds.size(), 7u);
  speeds.clear();
  auto all = search_max_speed(keeps_up_below(1e9, speeds), {});
  ASSERT_TRUE(all.max_speed);
  EXPECT_DOUBLE_EQ(*all.max_speed, 65536.0);
  EXPECT_FALSE(all.failing_speed);
  EXPECT_NE(all.limited_by.find("no limit"), std::string::npos);
}

TEST(SpeedSearch, BehindScheduleAndFailedCommandsFailAProbe) {
  auto probe = [](double speed) {
    probe_outcome p;
    p.speed = speed;
    p.worst_p99_ms = 1.0;
    p.completed = 10;
    p.behind = speed > 8;
    p.failed_commands = speed > 100;
    p.lag_p99_ms = speed > 8 ? 150.0 : 1.0;
    return p;
  };
  auto r = search_max_speed(probe, {});
  ASSERT_TRUE(r.max_speed);
  EXPECT_DOUBLE_EQ(*r.max_speed, 8.0);
  EXPECT_NE(r.limited_by.find("behind schedule"), std::string::npos) << r.limited_by;
}

TEST(SpeedSearch, AProbeWithNoAnsweredCommandIsNotAPass) {
  auto r = search_max_speed(
      [](double speed) {
        probe_outcome p;
        p.speed = speed;
        return p;
      },
      {});
  EXPECT_FALSE(r.max_speed);
  EXPECT_NE(r.limited_by.find("no command answered"), std::string::npos) << r.limited_by;
}

}  // namespace
