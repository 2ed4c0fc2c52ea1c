// Runs whose every wait can be computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <unistd.h>

#include "models/room/room.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {
std::string write_trace(const std::string& name, const std::string& body) {
  std::string path = testing::TempDir() + "/" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << body;
  return path;
}
}  // namespace

TEST(ExactRuns, BacklogDrainsInBatchesOfThree) {
  // 10 users at t = 0, 3 released every 200 ms from t = 200 ms:
  // waits 0.2 x3, 0.4 x3, 0.6 x3, 0.8 x1.
  auto s = scenario_from(R"({"name": "backlog", "classes": [{"name": "all"}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 0}],
                 "backlog_users": 10},
    "queue": {"policy": "fifo"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 3}})");
  auto r = models::run_scenario(s, 1);
  const auto& w = r.by_class[0];
  EXPECT_EQ(w.arrived, 10u);
  EXPECT_EQ(w.released, 10u);
  EXPECT_NEAR(w.wait_s.mean(), (3 * 0.2 + 3 * 0.4 + 3 * 0.6 + 0.8) / 10, 1e-12);
  EXPECT_DOUBLE_EQ(w.wait_s.min(), 0.2);
  EXPECT_DOUBLE_EQ(w.wait_s.max(), 0.8);
  // The median is 0.4 s, reported at its bucket's midpoint: within half a bucket width.
  EXPECT_NEAR(w.wait_ns.quantile(0.5), 4e8, 4e8 * sim::log_histogram::max_relative_width / 2);
  EXPECT_DOUBLE_EQ(r.end_time_s, 0.8);
  EXPECT_EQ(r.stop_reason, "drained");
  EXPECT_NEAR(r.queue_length_area, 0.2 * 10 + 0.2 * 7 + 0.2 * 4 + 0.2 * 1, 1e-12);
  EXPECT_EQ(r.peak_queue_length, 10u);
}

TEST(ExactRuns, VipOffsetJumpsAheadOfEarlierNormals) {
  // One release of 1 user every 200 ms. The VIP arrives last but, with a 10 s offset,
  // leaves first at 0.2 s; then the normals in arrival order.
  std::string trace =
      write_trace("offset.csv", "0.00,normal\n0.10,normal\n0.15,normal\n0.19,vip\n");
  auto s = scenario_from(R"({"name": "offset", "classes": [
      {"name": "vip", "share": 0.5, "offset_ms": 10000}, {"name": "normal", "share": 0.5}],
    "arrivals": {"process": "trace", "trace_file": ")" +
                         trace + R"("},
    "queue": {"policy": "offset", "time_unit": "ms"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}})");
  auto r = models::run_scenario(s, 1);
  EXPECT_NEAR(r.by_class[0].wait_s.mean(), 0.01, 1e-12);
  EXPECT_NEAR(r.by_class[1].wait_s.mean(), (0.4 + 0.5 + 0.65) / 3, 1e-12);
  EXPECT_NEAR(r.by_class[1].wait_s.max(), 0.65, 1e-12);

  // FIFO ignores the class: the VIP waits for all three.
  auto fifo = scenario_from(R"({"name": "fifo", "classes": [
      {"name": "vip", "share": 0.5, "offset_ms": 10000}, {"name": "normal", "share": 0.5}],
    "arrivals": {"process": "trace", "trace_file": ")" +
                            trace + R"("},
    "queue": {"policy": "fifo"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}})");
  auto rf = models::run_scenario(fifo, 1);
  EXPECT_NEAR(rf.by_class[0].wait_s.mean(), 0.8 - 0.19, 1e-12);
}

TEST(ExactRuns, LevelPrefixPutsEveryVipFirst) {
  // Levels: every VIP (level 0) before every normal (level 1), however late it came.
  std::string trace = write_trace("level.csv", "0.0,normal\n0.1,normal\n5.0,vip\n5.1,vip\n");
  auto s = scenario_from(R"({"name": "level", "classes": [
      {"name": "vip", "share": 0.5, "level": 0}, {"name": "normal", "share": 0.5, "level": 1}],
    "arrivals": {"process": "trace", "trace_file": ")" +
                         trace + R"("},
    "queue": {"policy": "level"},
    "release": {"mode": "tick", "interval_ms": 10000, "batch": 1}})");
  auto r = models::run_scenario(s, 1);
  // Ticks at 10, 20, 30, 40 s: VIPs at 10 and 20, normals at 30 and 40.
  EXPECT_NEAR(r.by_class[0].wait_s.mean(), ((10 - 5.0) + (20 - 5.1)) / 2, 1e-9);
  EXPECT_NEAR(r.by_class[1].wait_s.mean(), ((30 - 0.0) + (40 - 0.1)) / 2, 1e-9);
}

TEST(ExactRuns, SecondPrecisionTiesLetNormalsJumpVips) {
  // The articles' bug: with second timestamps, a VIP with a 1 s offset ties with a normal
  // who came 0.5 s earlier, and Redis orders ties by token bytes: a coin flip. With ms
  // timestamps the VIP always goes first.
  std::string body;
  const int pairs = 100;
  for (int k = 0; k < pairs; ++k)
    body += std::to_string(10 * k + 0.8) + ",normal\n" + std::to_string(10 * k + 1.3) + ",vip\n";
  std::string trace = write_trace("ties.csv", body);
  auto make = [&](const std::string& unit) {
    return scenario_from(R"({"name": "ties", "classes": [
        {"name": "vip", "share": 0.5, "offset_ms": 1000}, {"name": "normal", "share": 0.5}],
      "arrivals": {"process": "trace", "trace_file": ")" +
                         trace + R"("},
      "queue": {"policy": "offset", "time_unit": ")" +
                         unit + R"("},
      "release": {"mode": "tick", "interval_ms": 2000, "batch": 1}})");
  };
  // Ticks every 2 s: each pair is released at 10k + 2 and 10k + 4.
  auto ms = models::run_scenario(make("ms"), 1);
  EXPECT_NEAR(ms.by_class[0].wait_s.max(), 0.7, 1e-9);  // every VIP first
  EXPECT_NEAR(ms.by_class[1].wait_s.min(), 3.2, 1e-9);
  auto s = models::run_scenario(make("s"), 1);
  double vip_mean = s.by_class[0].wait_s.mean();
  // VIP waits are 0.7 or 2.7: the share that lost the coin flip, Binomial(100, 1/2).
  double lost = (vip_mean - 0.7) / 2.0 * pairs;
  EXPECT_NEAR(lost, 50, 5 * 5.0);  // 5 sd
  EXPECT_NEAR(s.by_class[0].wait_s.max(), 2.7, 1e-9);
}

TEST(ExactRuns, ConcurrencyAdmitsAtOnceWhileASlotIsFree) {
  // 2 slots, 1 s sessions, arrivals at 0, 0.1, 0.2, 0.3: the first two go straight in,
  // the third waits until 1.0, the fourth until 1.1.
  std::string trace = write_trace("conc.csv", "0.0,all\n0.1,all\n0.2,all\n0.3,all\n");
  auto s = scenario_from(R"({"name": "conc", "classes": [{"name": "all"}],
    "arrivals": {"process": "trace", "trace_file": ")" +
                         trace + R"("},
    "queue": {"policy": "fifo"},
    "release": {"mode": "concurrency", "slots": 2, "session_s": {"dist": "deterministic", "value": 1}}})");
  auto r = models::run_scenario(s, 1);
  EXPECT_NEAR(r.by_class[0].wait_s.mean(), (0 + 0 + 0.8 + 0.8) / 4, 1e-12);
  EXPECT_EQ(r.by_class[0].wait_ns.bucket(0), 2u);
}

TEST(ExactRuns, SameSeedSameResultDifferentSeedDifferentResult) {
  auto s =
      scenario_from(R"({"name": "det", "classes": [{"name": "vip", "share": 0.3, "offset_ms": 2000},
      {"name": "normal", "share": 0.7}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 20, "rate_per_s": 500}]},
    "queue": {"policy": "offset", "score_noise": 0.5},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 60}})");
  auto a = models::run_scenario(s, 5), b = models::run_scenario(s, 5),
       c = models::run_scenario(s, 6);
  EXPECT_EQ(a.overall.wait_s.mean(), b.overall.wait_s.mean());
  EXPECT_EQ(a.by_class[0].wait_s.stddev(), b.by_class[0].wait_s.stddev());
  EXPECT_EQ(a.events, b.events);
  EXPECT_NE(a.overall.wait_s.mean(), c.overall.wait_s.mean());
}
