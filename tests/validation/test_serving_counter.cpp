// The serving counter (AWS Virtual Waiting Room's model, docs/products.md), by hand: queue
// numbers in entry order, the periodic inlet between its start and end, a counter that runs
// ahead of the queue, numbers of users who gave up passed over, the alarm on the backend's
// response time and error rate, the max-size inlet moved by exits, and expired releases
// (no-shows) moving the counter.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/release/serving_counter.hpp"
#include "models/room/room.hpp"
#include "sim/input_error.hpp"
#include "support/test_support.hpp"
#include "support/trace_file.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

// A temporary arrivals trace in this suite's folder.
struct trace_file : testing_support::trace_file {
  explicit trace_file(const std::string& text)
      : testing_support::trace_file("serving-counter", text) {}
};

// FIFO at 1 µs, arrivals from `trace`, release {"mode": "serving_counter", <release>} and
// any further top-level keys in `more` (a backend, a run block).
models::room_result run(const trace_file& trace, const std::string& release,
                        const std::string& more = "",
                        const std::string& classes = R"([{"name": "all"}])") {
  auto s = scenario_from(R"({"name": "by-hand", "classes": )" + classes + R"(,
    "arrivals": {"process": "trace", "trace_file": ")" +
                             trace.path.string() + R"("},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "serving_counter", )" +
                             release + "}" + more + "}",
                         "/");
  return models::run_scenario(s, 1);
}

}  // namespace

TEST(ServingCounter, CountsQueueNumbersAndPassesOverThoseWhoLeft) {
  models::serving_counter c(0);
  EXPECT_EQ(c.entered(0), 0u);
  EXPECT_EQ(c.entered(1), 0u);
  EXPECT_EQ(c.entered(2), 0u);
  c.gave_up(0);
  EXPECT_EQ(c.advance(1), 0u);  // number 0 left: the increment serves nobody
  EXPECT_EQ(c.advance(5), 2u);  // numbers 1 and 2; the counter is now 3 ahead
  EXPECT_EQ(c.entered(3), 1u);  // already served on entry
  EXPECT_EQ(c.value(), 6u);
}

TEST(ServingCounter, ThePeriodicInletMovesOnlyBetweenStartAndEnd) {
  // +2 a minute until 170 s: ticks at 60 and 120 s serve numbers 0-1 and 2-3 (waits 60, 59,
  // 118, 117); the tick at 180 s is past the end, so 4 and 5 are never served.
  trace_file t("0,all\n1,all\n2,all\n3,all\n4,all\n5,all\n");
  auto r = run(t, R"("inlet": "periodic", "increment": 2, "end_s": 170)",
               R"(, "run": {"horizon_s": 400})");
  EXPECT_EQ(r.overall.released, 4u);
  EXPECT_EQ(r.overall.waiting_at_end, 2u);
  EXPECT_NEAR(r.overall.wait_s.mean(), (60 + 59 + 118 + 117) / 4.0, 1e-9);
  // Starting at 100 s: the first move is the tick at 120 s.
  auto late = run(t, R"("inlet": "periodic", "increment": 2, "start_s": 100, "end_s": 170)",
                  R"(, "run": {"horizon_s": 400})");
  EXPECT_EQ(late.overall.released, 2u);
  EXPECT_NEAR(late.overall.wait_s.mean(), (120 + 119) / 2.0, 1e-9);
}

TEST(ServingCounter, ACounterAheadOfTheQueueLetsNewcomersStraightIn) {
  // +5 at 60 s with two waiting: numbers 2-4 (arrivals at 70, 80, 90 s) go straight in; the
  // one at 100 s (number 5) waits for the tick at 120 s.
  trace_file t("0,all\n1,all\n70,all\n80,all\n90,all\n100,all\n");
  auto r = run(t, R"("inlet": "periodic", "increment": 5)");
  ASSERT_EQ(r.overall.released, 6u);
  EXPECT_NEAR(r.overall.wait_s.mean(), (60 + 59 + 0 + 0 + 0 + 20) / 6.0, 1e-9);
}

TEST(ServingCounter, AnIncrementSpentOnAUserWhoLeftServesNobody) {
  // Number 0 gives up at 30 s: the tick at 60 s passes over it, 1 is served at 120 s and 2 at
  // 180 s (waits 119, 178). A tick release of one user a minute would serve 1 at 60 s.
  trace_file t("0,leaver\n1,stay\n2,stay\n");
  const std::string classes = R"([{"name": "leaver", "share": 0.5,
      "patience_s": {"dist": "deterministic", "value": 30}}, {"name": "stay", "share": 0.5}])";
  auto r = run(t, R"("inlet": "periodic", "increment": 1)", "", classes);
  EXPECT_EQ(r.by_class[0].abandoned, 1u);
  ASSERT_EQ(r.by_class[1].released, 2u);
  EXPECT_NEAR(r.by_class[1].wait_s.min(), 119.0, 1e-9);
  EXPECT_NEAR(r.by_class[1].wait_s.max(), 178.0, 1e-9);
}

TEST(ServingCounter, TheAlarmPausesThePeriodicInlet) {
  // +3 a minute; one backend worker, 1 s a user. Numbers 0-2 are served at 60 s and answered
  // at 61, 62, 63 s (RT 1, 2, 3 s: mean 2 s, two of three over a 1.5 s timeout). At 120 s the
  // alarm is on and the inlet skips; at 180 s the last minute had no responses (OK), so 3-5
  // are served then: waits 177, 176, 175 instead of 117, 116, 115.
  trace_file t("0,all\n1,all\n2,all\n3,all\n4,all\n5,all\n");
  const std::string backend = R"(, "backend": {"workers": 1, "timeout_s": 1.5,
      "service_s": {"dist": "deterministic", "value": 1}})";
  auto quiet = run(t, R"("inlet": "periodic", "increment": 3)", backend);
  EXPECT_NEAR(quiet.overall.wait_s.max(), 117.0, 1e-9);
  for (const std::string alarm : {R"("alarm_rt_ms": 1500)", R"("alarm_error_rate": 0.5)"}) {
    auto r = run(t, R"("inlet": "periodic", "increment": 3, )" + alarm, backend);
    ASSERT_EQ(r.overall.released, 6u) << alarm;
    EXPECT_NEAR(r.overall.wait_s.mean(), (60 + 59 + 58 + 177 + 176 + 175) / 6.0, 1e-9) << alarm;
  }
  // Over the threshold only at 2.5 s mean: no pause.
  auto high = run(t, R"("inlet": "periodic", "increment": 3, "alarm_rt_ms": 2500)", backend);
  EXPECT_NEAR(high.overall.wait_s.max(), 117.0, 1e-9);
}

TEST(ServingCounter, TheMaxSizeInletMovesByExits) {
  // At most 2 on the site; one worker, 10 s a user. 0 and 1 go straight in (answered at 10
  // and 20 s); each exit serves the next: 2 at 10 s (waited 8), 3 at 20 s (waited 17).
  trace_file t("0,all\n1,all\n2,all\n3,all\n");
  auto r =
      run(t, R"("inlet": "max_size", "max_size": 2)",
          R"(, "backend": {"workers": 1, "service_s": {"dist": "deterministic", "value": 10}})");
  ASSERT_EQ(r.overall.released, 4u);
  EXPECT_NEAR(r.overall.wait_s.mean(), (0 + 0 + 8 + 17) / 4.0, 1e-9);
}

TEST(ServingCounter, AnExpiredReleaseMovesTheCounter) {
  // Max size 1, nobody comes (no-shows), a release expires after 30 s and moves the counter:
  // 0 at 0 s, 1 at 30 s (waited 29), 2 at 60 s (waited 58).
  trace_file t("0,all\n1,all\n2,all\n");
  auto r = run(t, R"("inlet": "max_size", "max_size": 1)",
               R"(, "backend": {"workers": 1, "no_show_probability": 1, "reclaim_s": 30,
                   "service_s": {"dist": "deterministic", "value": 10}})");
  ASSERT_EQ(r.overall.released, 3u);
  EXPECT_NEAR(r.overall.wait_s.mean(), (0 + 29 + 58) / 3.0, 1e-9);
}

TEST(ServingCounter, NeedsWhatItReads) {
  auto fails = [](const std::string& text, const std::string& pointer) {
    try {
      scenario_from(text);
    } catch (const sim::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(pointer), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << text;
  };
  const std::string head = R"({"name": "bad", "classes": [{"name": "all"}],
      "arrivals": {"process": "poisson", "rate_per_s": 1}, )";
  fails(head + R"("release": {"mode": "serving_counter", "inlet": "periodic", "increment": 1}})",
        "/queue/policy");
  fails(head + R"("queue": {"policy": "fifo"},
      "release": {"mode": "serving_counter", "inlet": "max_size", "max_size": 5}})",
        "/release/inlet");
  fails(head + R"("queue": {"policy": "fifo"},
      "release": {"mode": "serving_counter", "inlet": "periodic", "increment": 1,
                  "alarm_rt_ms": 500}})",
        "/release/alarm_rt_ms");
  fails(head + R"("queue": {"policy": "fifo"},
      "release": {"mode": "serving_counter", "inlet": "max_size", "increment": 1}})",
        "/release/increment");
}

TEST(TickRelease, TheFirstTickCanWaitForTheDrop) {
  // first_tick_s 600: users at 0 and 10 s wait for the tick at 600 s, then one a minute.
  trace_file t("0,all\n10,all\n");
  auto s = scenario_from(R"({"name": "drop", "classes": [{"name": "all"}],
    "arrivals": {"process": "trace", "trace_file": ")" +
                             t.path.string() + R"("},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "tick", "interval_ms": 60000, "batch": 1, "first_tick_s": 600}})",
                         "/");
  auto r = models::run_scenario(s, 1);
  ASSERT_EQ(r.overall.released, 2u);
  EXPECT_NEAR(r.overall.wait_s.min(), 600.0, 1e-9);
  EXPECT_NEAR(r.overall.wait_s.max(), 650.0, 1e-9);
}
