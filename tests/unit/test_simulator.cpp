// The run loop's stop conditions, and its livelock guard: an event that reschedules itself at
// the same instant forever stops the run with an error naming the event and the time,
// instead of spinning.
#include <gtest/gtest.h>

#include <string>

#include "sim/simulator.hpp"

using namespace waitroom::sim;

namespace {
// Kind 0 runs once a nanosecond for `ticks` ns; kind 1, once started, reschedules itself at
// the same instant forever (the bug the guard exists for).
struct stuck_model {
  simulator* sim;
  std::int64_t ticks;
  std::int64_t stuck_at;  // when kind 1 starts (-1: never)
  std::uint64_t handled = 0;

  void handle(const event& e) {
    ++handled;
    if (e.kind == 0 && e.time_ns + 1 < ticks) sim->schedule(sim_time::from_ns(e.time_ns + 1), 0, 0);
    if (e.kind == 0 && e.time_ns == stuck_at) sim->schedule(e.time(), 2, 1, 7);
    if (e.kind == 1) sim->schedule(e.time(), 2, 1, e.arg);
  }
  bool done() const { return false; }
  const char* event_name(std::uint32_t kind) const { return kind == 1 ? "stuck" : "tick"; }
};

// Many events at one instant, all legitimate: each is scheduled once.
struct burst_model {
  std::uint64_t handled = 0;
  void handle(const event&) { ++handled; }
  bool done() const { return false; }
};
}  // namespace

TEST(Livelock, SameInstantReschedulingStopsWithTheEventAndTheTime) {
  simulator s;
  stuck_model m{&s, 100, 42};
  s.schedule(sim_time::from_ns(0), 0, 0);
  stop_conditions stop;
  stop.max_same_instant = 1000;
  try {
    s.run(m, stop);
    FAIL() << "the run returned";
  } catch (const livelock_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("livelock"), std::string::npos) << what;
    EXPECT_NE(what.find("event kind 1 (stuck)"), std::string::npos) << what;
    EXPECT_NE(what.find("t = 42 ns"), std::string::npos) << what;
    EXPECT_NE(what.find("more than 1000 events"), std::string::npos) << what;
  }
  // At most the bound's 1000 events ran at t = 42: the tick, then 999 stuck ones.
  EXPECT_EQ(m.handled, 43u + 999u);
  EXPECT_EQ(s.now(), sim_time::from_ns(42));
}

TEST(LivelockSlow, TheDefaultBoundStopsARealLivelock) {
  // The default bound, not a test-sized one: a model stuck at t = 5 stops on its own.
  simulator s;
  stuck_model m{&s, 10, 5};
  s.schedule(sim_time::from_ns(0), 0, 0);
  EXPECT_THROW(s.run(m, {}), livelock_error);
  EXPECT_EQ(m.handled, 5u + stop_conditions{}.max_same_instant);
}

TEST(Livelock, LegitimateBurstsAtOneInstantRunToTheEnd) {
  // A bound of 1000 lets 1000 events at t = 3 through, and the count restarts when time
  // advances: 1000 more at t = 4 are fine too. Ticks without a livelock drain normally.
  simulator s;
  burst_model b;
  for (int i = 0; i < 1000; ++i) {
    s.schedule(sim_time::from_ns(3), 0, 0);
    s.schedule(sim_time::from_ns(4), 0, 0);
  }
  stop_conditions stop;
  stop.max_same_instant = 1000;
  EXPECT_EQ(s.run(b, stop), stop_reason::drained);
  EXPECT_EQ(b.handled, 2u * 1000u);
  for (int i = 0; i < 1001; ++i) s.schedule(sim_time::from_ns(9), 0, 0);
  EXPECT_THROW(s.run(b, stop), livelock_error);  // the 1001st in a row at t = 9
  EXPECT_EQ(b.handled, 3u * 1000u);
  simulator t;
  stuck_model ticks{&t, 1000, -1};
  t.schedule(sim_time::from_ns(0), 0, 0);
  EXPECT_EQ(t.run(ticks, stop), stop_reason::drained);
  EXPECT_EQ(ticks.handled, 1000u);
}

TEST(RunLoop, AnEventExactlyAtTheHorizonRuns) {
  // "Events after the horizon are not executed": the one at the horizon is.
  simulator s;
  burst_model b;
  s.schedule(sim_time::from_ns(10), 0, 0);
  s.schedule(sim_time::from_ns(20), 0, 0);
  s.schedule(sim_time::from_ns(21), 0, 0);
  EXPECT_EQ(s.run(b, {sim_time::from_ns(20)}), stop_reason::horizon);
  EXPECT_EQ(b.handled, 2u);
  EXPECT_EQ(s.now(), sim_time::from_ns(20));
  EXPECT_EQ(s.queue().size(), 1u);
}
