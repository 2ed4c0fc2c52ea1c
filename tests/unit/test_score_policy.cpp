// Queue scores: a truncated timestamp in the policy's unit, minus a class offset or under a
// level prefix, plus the random suffix. Exact values, so a unit or sign slip shows.
#include <gtest/gtest.h>

#include "models/scores/score_policy.hpp"

using namespace waitroom;
using models::ordering;
using models::score_policy;
using models::time_unit;

namespace {
const sim::sim_time at = sim::sim_time::from_ns(12'345'678'912);  // 12.345678912 s
}

TEST(ScorePolicy, TimestampsAreTruncatedToTheUnit) {
  score_policy p;
  p.order = ordering::fifo;
  p.unit = time_unit::s;
  EXPECT_EQ(p.score(at, 0, 0.0), 12.0);
  p.unit = time_unit::ms;
  EXPECT_EQ(p.score(at, 0, 0.0), 12345.0);
  p.unit = time_unit::us;
  EXPECT_EQ(p.score(at, 0, 0.0), 12345678.0);
  // Two users in the same second tie in seconds and not in milliseconds.
  const auto early = sim::sim_time::from_ms(12001), late = sim::sim_time::from_ms(12999);
  p.unit = time_unit::s;
  EXPECT_EQ(p.score(early, 0, 0.0), p.score(late, 0, 0.0));
  p.unit = time_unit::ms;
  EXPECT_LT(p.score(early, 0, 0.0), p.score(late, 0, 0.0));
}

TEST(ScorePolicy, OffsetMovesAClassAheadAndLevelDominatesTime) {
  score_policy p;
  p.order = ordering::offset;
  p.unit = time_unit::ms;
  p.offset_units = {10000.0, 0.0};  // VIPs 10 s ahead
  EXPECT_EQ(p.score(at, 0, 0.0), 12345.0 - 10000.0);
  EXPECT_EQ(p.score(at, 1, 0.0), 12345.0);
  p.order = ordering::level;
  p.level = {0.0, 1.0};
  EXPECT_EQ(p.score(at, 0, 0.0), 12345.0);
  EXPECT_EQ(p.score(at, 1, 0.0), 1e13 + 12345.0);
  // A level-0 user arriving a year later is still ahead of a level-1 user.
  const auto year = sim::sim_time::from_seconds(365.0 * 86400.0);
  EXPECT_LT(p.score(year, 0, 0.0), p.score(at, 1, 0.0));
}

TEST(ScorePolicy, NoiseAddsTheUsersDrawInUnits) {
  score_policy p;
  p.order = ordering::fifo;
  p.unit = time_unit::ms;
  p.noise = 500.0;
  EXPECT_EQ(p.score(at, 0, 0.0), 12345.0);
  EXPECT_EQ(p.score(at, 0, 0.5), 12345.0 + 250.0);
  p.noise = 0.0;
  EXPECT_EQ(p.score(at, 0, 0.5), 12345.0);
}
