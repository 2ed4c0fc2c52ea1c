// Aging by hand: users who waited max_wait_s move up one list at the right times, keep their
// score, are dropped lazily once gone, and lists without a limit never age.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "models/events.hpp"
#include "models/queues/queues.hpp"
#include "models/users/users.hpp"
#include "models/visits/aging.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;
constexpr std::uint32_t k_step = 1000;  // the test's kind: run steps[arg] now

// Three lists served strictly (as in scenarios/strict_aging.json): high (no limit), medium
// and low (60 s each). FIFO scores in whole seconds.
const std::string three_lists = R"({"name": "aging",
  "classes": [{"name": "high", "share": 0.7}, {"name": "medium", "share": 0.2},
              {"name": "low", "share": 0.1}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"policy": "fifo", "time_unit": "s", "lists": [
    {"name": "high", "classes": ["high"]},
    {"name": "medium", "classes": ["medium"], "max_wait_s": 60},
    {"name": "low", "classes": ["low"], "max_wait_s": 60}]},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1, "selection": {"kind": "strict"}},
  "run": {"horizon_s": 10}})";

// Whole seconds as simulated nanoseconds.
std::vector<std::int64_t> secs(std::initializer_list<std::int64_t> s) {
  std::vector<std::int64_t> out;
  for (std::int64_t v : s) out.push_back(v * s_ns);
  return out;
}

struct move {
  double t_s;
  std::uint32_t user, from, to;
  bool operator==(const move&) const = default;
};

std::ostream& operator<<(std::ostream& os, const move& m) {
  return os << "{" << m.t_s << " s, user " << m.user << ", " << m.from << "->" << m.to << "}";
}

// The room's part: users enter at given times, k_aging goes to the component.
struct rig {
  rig()
      : sc(testing_support::scenario_from(three_lists)),
        u(sc.policy, 3, 1, 2),
        q(sc, u),
        a(sc, sim, u, q) {}
  void at(double t_s, std::function<void()> f) {
    sim.schedule(sim::sim_time::from_seconds(t_s), models::p_arrival, k_step,
                 static_cast<std::uint32_t>(steps.size()));
    steps.push_back(std::move(f));
  }
  std::uint32_t enter(std::uint32_t c) {
    const std::int64_t now = sim.now().ns();
    const std::uint32_t user = u.add(now, c, false);
    const std::uint32_t l = sc.route[c][0];
    q.enter(user, c, l, now);
    a.arrived(user, l);
    return user;
  }
  void handle(const sim::event& e) {
    if (e.kind == k_step) {
      steps[e.arg]();
    } else if (e.kind == models::k_aging) {
      aging_times.push_back(e.time_ns);
      a.on_aging(e.arg, [&](std::uint32_t user, std::uint32_t from, std::uint32_t to) {
        moves.push_back({sim.now().seconds(), user, from, to});
      });
    }
  }
  bool done() const { return false; }

  models::scenario sc;
  sim::simulator sim;
  models::users u;
  models::queues q;
  models::aging a;
  std::vector<std::function<void()>> steps;
  std::vector<move> moves;
  std::vector<std::int64_t> aging_times;  // ns
};

}  // namespace

TEST(Aging, UsersMoveUpOneListPerMaxWaitByHand) {
  rig r;
  std::uint32_t l0 = 0, m0 = 0, l1 = 0, l2 = 0, m1 = 0, m2 = 0, h0 = 0;
  r.at(0, [&] { l0 = r.enter(2); });
  r.at(5, [&] { h0 = r.enter(0); });  // the high list never ages
  r.at(10, [&] { m0 = r.enter(1); });
  r.at(30, [&] { l1 = r.enter(2); });
  r.at(40, [&] { l2 = r.enter(2); });
  r.at(50, [&] {  // l2 gives up: its entry is dropped when due, with no move
    r.q.remove(l2, r.sim.now().ns());
    r.u.retire(l2);
  });
  r.at(65, [&] { m1 = r.enter(1); });
  r.at(200, [&] { m2 = r.enter(1); });  // after the medium list went quiet
  r.sim.run(r, {});
  // low 0 -> medium at 60 and -> high 60 s after that; medium 10 -> high at 70; ...
  const std::vector<move> want{{60, l0, 2, 1},  {70, m0, 1, 0},  {90, l1, 2, 1}, {120, l0, 1, 0},
                               {125, m1, 1, 0}, {150, l1, 1, 0}, {260, m2, 1, 0}};
  EXPECT_EQ(r.moves, want);
  // One event per list at a time, at the next user's due time; l2 (gone) is dropped at 90
  // while the low list is being walked, so no event comes at its due time (100).
  EXPECT_EQ(r.aging_times, secs({60, 70, 90, 120, 125, 150, 260}));
  EXPECT_EQ(r.q.sizes(), (std::vector<std::uint64_t>{6, 0, 0}));
  // Scores kept: the high list releases by entry time, whoever moved in.
  std::vector<std::uint32_t> order;
  r.q.pop(0, 10, r.sim.now().ns(), [&](std::uint32_t user) { order.push_back(user); });
  EXPECT_EQ(order, (std::vector<std::uint32_t>{l0, h0, m0, l1, m1, m2}));
}

TEST(Aging, AUserReleasedBeforeItsDueTimeIsNotMoved) {
  rig r;
  std::uint32_t l0 = 0, l1 = 0;
  r.at(0, [&] { l0 = r.enter(2); });
  r.at(1, [&] { l1 = r.enter(2); });
  r.at(30, [&] {  // the release takes the low list's head
    r.q.pop(2, 1, r.sim.now().ns(), [&](std::uint32_t user) {
      EXPECT_EQ(user, l0);
      r.u.retire(user);
    });
  });
  r.sim.run(r, {});
  EXPECT_EQ(r.moves, (std::vector<move>{{61, l1, 2, 1}, {121, l1, 1, 0}}));
  // The event planned at 60 for l0 finds it gone and plans l1's at 61.
  EXPECT_EQ(r.aging_times, secs({60, 61, 121}));
}

TEST(Aging, AUserWhoGaveUpAfterMovingUpIsNotMovedAgain) {
  // A user who moved up (by aging) and then gave up before its next due time: the medium
  // list's entry for it is skipped.
  rig r;
  std::uint32_t l0 = 0;
  r.at(0, [&] { l0 = r.enter(2); });
  r.at(90, [&] {
    r.q.remove(l0, r.sim.now().ns());
    r.u.retire(l0);
  });
  r.sim.run(r, {});
  EXPECT_EQ(r.moves, (std::vector<move>{{60, l0, 2, 1}}));
  EXPECT_EQ(r.aging_times, secs({60, 120}));
  EXPECT_EQ(r.q.total(), 0u);
}

TEST(Aging, NoLimitNoEventsAndMemoryCountsTheEntries) {
  rig r;
  r.at(0, [&] { r.enter(0); });
  r.at(1, [&] {
    EXPECT_EQ(r.a.memory_bytes(), 0u);  // the high list keeps nothing
    r.enter(1);
    r.enter(2);
    EXPECT_EQ(r.a.memory_bytes(), 2 * sizeof(std::uint32_t));
  });
  r.sim.run(r, {sim::sim_time::from_seconds(30), ~std::uint64_t{0}});
  EXPECT_TRUE(r.aging_times.empty());
}
