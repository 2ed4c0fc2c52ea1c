// The tracer: one line per change inside the filter, with the token and queue length, and a
// released user's later lines under the class noted at its release.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/queues/queues.hpp"
#include "models/trace/trace.hpp"
#include "models/users/users.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;
constexpr std::uint32_t k_step = 1000;

struct recording_sink : models::trace_sink {
  std::vector<models::trace_event> lines;
  void write(const models::trace_event& e) override { lines.push_back(e); }
};

// Runs f at time t through the simulator (the tracer reads the time from it).
struct at_time {
  std::function<void()> f;
  void handle(const sim::event&) { f(); }
  bool done() const { return false; }
};

struct rig {
  rig()
      : sc(testing_support::scenario_from(R"({"name": "t",
          "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
          "arrivals": {"process": "poisson", "rate_per_s": 1},
          "release": {"mode": "tick", "interval_ms": 200, "batch": 1}, "run": {"horizon_s": 1}})")),
        u(sc.policy, 2, 3, 4),
        q(sc, u),
        trace(sim, u, q) {}
  void at(double t_s, std::function<void()> f) {
    sim.schedule(sim::sim_time::from_seconds(t_s), 0, k_step);
    at_time d{std::move(f)};
    sim.run(d, {});
  }
  std::uint32_t enter(std::uint32_t c) {
    const auto user = u.add(sim.now().ns(), c, false);
    q.enter(user, c, 0, sim.now().ns());
    return user;
  }
  models::scenario sc;
  sim::simulator sim;
  models::users u;
  models::queues q;
  models::tracer trace;
};

}  // namespace

TEST(Tracer, WithoutASinkNothingIsWrittenOrRemembered) {
  rig r;
  EXPECT_FALSE(r.trace.on());
  r.at(1, [&] {
    const auto a = r.enter(0);
    r.trace.line(a, 0, "enter", 0);
    r.trace.remember(a, 0);
  });
  recording_sink sink;
  r.trace.attach(&sink, {});
  EXPECT_TRUE(r.trace.on());
  r.trace.last_line(0, "reach");  // not remembered while there was no sink
  EXPECT_TRUE(sink.lines.empty());
}

TEST(Tracer, LinesCarryTimeTokenClassListAndQueueLength) {
  rig r;
  recording_sink sink;
  r.trace.attach(&sink, {});
  std::uint32_t a = 0, b = 0;
  r.at(1.5, [&] {
    a = r.enter(1);
    r.trace.line(a, 1, "enter", 0);
    b = r.enter(0);
    r.trace.line(b, 0, "enter", 0);
  });
  ASSERT_EQ(sink.lines.size(), 2u);
  const auto& e = sink.lines[0];
  EXPECT_EQ(e.time_ns, 1'500'000'000);
  EXPECT_EQ(e.user, a);
  EXPECT_EQ(e.token, r.u.token_of(a));
  EXPECT_EQ(e.user_class, 1u);
  EXPECT_EQ(std::string(e.action), "enter");
  EXPECT_EQ(e.list, 0);
  EXPECT_EQ(e.queue_length, 1u);  // after the change
  EXPECT_EQ(sink.lines[1].queue_length, 2u);
  EXPECT_EQ(sink.lines[1].user, b);
}

TEST(Tracer, TheFilterKeepsATimeWindowAndChosenUsers) {
  rig r;
  recording_sink sink;
  models::trace_filter f;
  f.from_ns = 2 * s_ns;
  f.to_ns = 4 * s_ns;
  f.users = {1};
  r.trace.attach(&sink, f);
  std::vector<std::uint32_t> users;
  for (double t : {1.0, 2.0, 3.0, 4.0, 5.0})
    r.at(t, [&] {
      users.push_back(r.enter(0));
      r.trace.line(users.back(), 0, "enter", 0);  // user k enters at k + 1 s
      r.trace.line(1, 0, "age", 0);               // user 1 (once it exists) ages every second
    });
  // User 1's lines from 2 s to 4 s inclusive: its enter at 2 and its age lines at 2, 3, 4.
  std::vector<std::pair<std::int64_t, std::string>> got;
  for (const auto& e : sink.lines) {
    EXPECT_EQ(e.user, 1u);
    got.emplace_back(e.time_ns, e.action);
  }
  const std::vector<std::pair<std::int64_t, std::string>> want{
      {2 * s_ns, "enter"}, {2 * s_ns, "age"}, {3 * s_ns, "age"}, {4 * s_ns, "age"}};
  EXPECT_EQ(got, want);
}

TEST(Tracer, AReleasedUsersLaterLinesUseTheRememberedClassUntilTheLast) {
  rig r;
  recording_sink sink;
  r.trace.attach(&sink, {});
  std::uint32_t a = 0, b = 0;
  r.at(1, [&] {
    a = r.enter(1);
    b = r.enter(0);
    r.trace.remember(a, 1);
    r.trace.remember(b, 0);
  });
  r.at(3, [&] {
    r.trace.noted_line(a, "reach");   // the class stays noted
    r.trace.last_line(a, "done");     // and is dropped
    r.trace.last_line(a, "reclaim");  // already closed
    r.trace.noted_line(a, "reach");   // likewise
    r.trace.last_line(b, "reclaim");
  });
  ASSERT_EQ(sink.lines.size(), 3u);
  const char* want[] = {"reach", "done", "reclaim"};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sink.lines[i].user, i < 2 ? a : b);
    EXPECT_EQ(sink.lines[i].user_class, i < 2 ? 1u : 0u);
    EXPECT_EQ(std::string(sink.lines[i].action), want[i]);
    EXPECT_EQ(sink.lines[i].list, -1);
    EXPECT_EQ(sink.lines[i].time_ns, 3 * s_ns);
  }
}
