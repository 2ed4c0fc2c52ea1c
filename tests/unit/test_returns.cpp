// Returning visits and temporary-VIP credits by hand: granted for a long wait, once a day,
// used by the next visit that day or expired at midnight, unused when the holder never comes
// back; in place, a waiting user re-scored when its wait passes the threshold.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/events.hpp"
#include "models/queues/queues.hpp"
#include "models/users/users.hpp"
#include "models/visits/returns.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using models::returns;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;
constexpr std::int64_t day_s = 86'400;

// Whole seconds as simulated nanoseconds.
std::vector<std::int64_t> secs(std::initializer_list<std::int64_t> s) {
  std::vector<std::int64_t> out;
  for (std::int64_t v : s) out.push_back(v * s_ns);
  return out;
}
constexpr std::uint32_t k_step = 1000;  // the test's kind: run steps[arg] now

// vip is not eligible for credits; normal earns one after 60 s. Back after 30 s with
// `probability`.
std::string scenario_json(double probability, bool in_place) {
  return R"({"name": "returns",
  "classes": [{"name": "vip", "share": 0.5, "offset_ms": 10000}, {"name": "normal", "share": 0.5}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"policy": "offset", "compensation": {"threshold_s": 60, "offset_ms": 60000,
            "classes": ["normal"], "in_place": )" +
         std::string(in_place ? "true" : "false") + R"(}},
  "returns": {"probability": )" +
         std::to_string(probability) + R"(, "delay_s": {"dist": "deterministic", "value": 30}},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1},
  "run": {"horizon_s": 10}})";
}

struct rig {
  explicit rig(double probability, bool in_place = false)
      : sc(testing_support::scenario_from(scenario_json(probability, in_place))),
        u(sc.policy, 2, 1, 2),
        q(sc, u),
        r(sc, sim, u, q, 1, 0) {}
  void at(double t_s, std::function<void()> f) {
    sim.schedule(sim::sim_time::from_seconds(t_s), models::p_arrival, k_step,
                 static_cast<std::uint32_t>(steps.size()));
    steps.push_back(std::move(f));
  }
  std::int64_t now() const { return sim.now().ns(); }
  std::uint32_t enter(const returns::visit& v) {
    const std::uint32_t user = u.add(now(), v.user_class, v.boosted);
    q.enter(user, v.user_class, 0, now());
    r.entered(user, v);
    return user;
  }
  // The room's release of a waiting user.
  void release(std::uint32_t user) {
    q.remove(user, now());  // (the list's order is not what this test is about)
    r.released(user, u.cls(user), now() - u.entry_ns(user));
    u.retire(user);
  }
  void give_up(std::uint32_t user) {
    q.remove(user, now());
    r.gave_up(user, u.cls(user), now() - u.entry_ns(user));
    u.retire(user);
  }
  void handle(const sim::event& e) {
    const std::int64_t t = e.time_ns;
    if (e.kind == k_step) {
      steps[e.arg]();
    } else if (e.kind == models::k_return) {
      return_times.push_back(t);
      if (on_return) on_return(r.on_return(e.arg));
    } else if (e.kind == models::k_compensate) {
      compensate_times.push_back(t);
      r.on_compensate([&](std::uint32_t user) { rescored.push_back(user); });
    }
  }
  bool done() const { return false; }
  void run() { sim.run(*this, {}); }

  models::scenario sc;
  sim::simulator sim;
  models::users u;
  models::queues q;
  returns r;
  std::vector<std::function<void()>> steps;
  std::function<void(const returns::visit&)> on_return;
  std::vector<std::int64_t> return_times, compensate_times;  // ns
  std::vector<std::uint32_t> rescored;
};

}  // namespace

TEST(Returns, ALongWaitEarnsACreditTheNextVisitThatDayUsesOnce) {
  rig g(1.0);
  EXPECT_TRUE(g.r.active());
  std::vector<returns::visit> back;
  std::vector<std::uint32_t> visits;
  g.on_return = [&](const returns::visit& v) {
    back.push_back(v);
    if (back.size() <= 2) visits.push_back(g.enter(v));
  };
  g.at(0, [&] { visits.push_back(g.enter({1, false, -1})); });
  g.at(100, [&] { g.release(visits[0]); });  // waited 100 s > 60: a credit
  g.at(200, [&] {                            // the credited visit (entered at 130)
    EXPECT_TRUE(g.u.boosted(visits[1]));
    EXPECT_DOUBLE_EQ(g.u.score_of(visits[1]), 130'000.0 - 60'000.0);
    g.release(visits[1]);
  });
  g.at(400, [&] { g.release(visits[2]); });  // waited 170 s, but a credit was used today
  g.run();
  // Each visit comes back 30 s after it ended.
  EXPECT_EQ(g.return_times, secs({130, 230, 430}));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].user_class, 1u);
  EXPECT_TRUE(back[0].boosted);
  EXPECT_EQ(back[0].credit_day, 0);
  EXPECT_FALSE(back[1].boosted);  // the credited visit earns none
  EXPECT_EQ(back[1].credit_day, 0);
  EXPECT_FALSE(back[2].boosted);  // nor does a long wait on the day a credit was used
  EXPECT_EQ(g.r.returning_visits(), 3u);
  EXPECT_FALSE(g.r.in_flight());
  const auto res = g.r.finish();
  ASSERT_TRUE(res.has_value());
  EXPECT_EQ(res->granted, 1u);
  EXPECT_EQ(res->used, 1u);
  EXPECT_EQ(res->expired, 0u);
  EXPECT_EQ(res->unused, 0u);
  EXPECT_EQ(res->used_in_place, 0u);
  EXPECT_EQ(res->credited.arrived, 1u);
  EXPECT_EQ(res->credited.released, 1u);
  EXPECT_DOUBLE_EQ(res->credited.wait_s.mean(), 70.0);
}

TEST(Returns, ACreditExpiresAtMidnight) {
  rig g(1.0);
  std::vector<returns::visit> back;
  g.on_return = [&](const returns::visit& v) { back.push_back(v); };
  std::uint32_t a = 0;
  g.at(day_s - 100, [&] { a = g.enter({1, false, -1}); });
  g.at(day_s - 10, [&] { g.release(a); });  // 90 s: a credit, valid until midnight
  g.run();
  EXPECT_EQ(g.return_times, secs({day_s + 20}));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_FALSE(back[0].boosted);
  EXPECT_EQ(back[0].credit_day, -1);
  const auto res = g.r.finish();
  EXPECT_EQ(res->granted, 1u);
  EXPECT_EQ(res->used, 0u);
  EXPECT_EQ(res->expired, 1u);
  EXPECT_EQ(res->credited.arrived, 0u);
}

TEST(Returns, NoCreditForAShortWaitTheThresholdItselfOrAnIneligibleClass) {
  rig g(1.0);
  std::vector<returns::visit> back;
  g.on_return = [&](const returns::visit& v) { back.push_back(v); };
  std::uint32_t a = 0, b = 0, v = 0;
  g.at(0, [&] {
    a = g.enter({1, false, -1});
    b = g.enter({1, false, -1});
    v = g.enter({0, false, -1});
  });
  g.at(30, [&] { g.release(a); });
  g.at(60, [&] { g.release(b); });  // exactly the threshold: not over it
  g.at(500, [&] { g.release(v); });
  g.run();
  EXPECT_EQ(g.return_times, secs({60, 90, 530}));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2].user_class, 0u);  // the same person, the same class
  for (const auto& r : back) EXPECT_FALSE(r.boosted);
  EXPECT_EQ(g.r.finish()->granted, 0u);
}

TEST(Returns, GivingUpAfterALongWaitEarnsACreditToo) {
  rig g(1.0);
  std::vector<returns::visit> back;
  g.on_return = [&](const returns::visit& v) { back.push_back(v); };
  std::uint32_t a = 0;
  g.at(0, [&] { a = g.enter({1, false, -1}); });
  g.at(61, [&] { g.give_up(a); });
  g.run();
  EXPECT_EQ(g.return_times, secs({91}));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].boosted);
  EXPECT_EQ(g.r.finish()->used, 1u);
}

TEST(Returns, ACreditWhoseHolderNeverComesBackIsUnused) {
  rig never(0.0);
  std::uint32_t a = 0;
  never.at(0, [&] { a = never.enter({1, false, -1}); });
  never.at(100, [&] { never.release(a); });
  never.run();
  EXPECT_TRUE(never.return_times.empty());
  const auto res = never.r.finish();
  EXPECT_EQ(res->granted, 1u);
  EXPECT_EQ(res->unused, 1u);

  // Still on its way at the end of the run: counted unused too.
  rig pending(1.0);
  pending.at(0, [&] { a = pending.enter({1, false, -1}); });
  pending.at(100, [&] { pending.release(a); });
  pending.sim.run(pending, {sim::sim_time::from_seconds(110), ~std::uint64_t{0}});
  EXPECT_TRUE(pending.r.in_flight());
  EXPECT_EQ(pending.r.finish()->unused, 1u);
}

TEST(Returns, AVisitServedAtOnceComesBackWithoutACredit) {
  rig g(1.0);
  std::vector<returns::visit> back;
  g.on_return = [&](const returns::visit& v) { back.push_back(v); };
  g.at(5, [&] { g.r.served_at_once({1, false, -1}); });
  g.run();
  EXPECT_EQ(g.return_times, secs({35}));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_FALSE(back[0].boosted);
  EXPECT_EQ(g.r.finish()->granted, 0u);
}

TEST(Returns, WithoutReturnsOrCreditsNothingHappens) {
  const auto sc = testing_support::scenario_from(R"({"name": "none",
    "classes": [{"name": "all"}], "arrivals": {"process": "poisson", "rate_per_s": 1},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}, "run": {"horizon_s": 1}})");
  sim::simulator sim;
  models::users u(sc.policy, 1, 1, 2);
  models::queues q(sc, u);
  returns r(sc, sim, u, q, 1, 0);
  EXPECT_FALSE(r.active());
  const auto user = u.add(0, 0, false);
  q.enter(user, 0, 0, 0);
  r.entered(user, {0, false, -1});
  r.released(user, 0, 1000 * s_ns);
  EXPECT_TRUE(sim.queue().empty());
  EXPECT_FALSE(r.finish().has_value());
}

TEST(Returns, InPlaceRescoresWaitingUsersWhenTheirWaitPassesTheThreshold) {
  rig g(0.0, true);
  std::uint32_t a = 0, b = 0, c = 0, v = 0, d = 0;
  g.at(0, [&] { a = g.enter({1, false, -1}); });
  g.at(5, [&] { v = g.enter({0, false, -1}); });  // vip: not eligible
  g.at(10, [&] { b = g.enter({1, false, -1}); });
  g.at(20, [&] { c = g.enter({1, false, -1}); });
  g.at(50, [&] { g.give_up(c); });  // gone before its turn
  g.at(61, [&] {
    EXPECT_TRUE(g.u.boosted(a));
    EXPECT_FALSE(g.u.boosted(b));
    EXPECT_EQ(g.q.head(0), a);  // 0 - 60000 is before the vip's 5000 - 10000
  });
  g.at(100, [&] { d = g.enter({1, false, 0}); });  // used a credit today already
  g.at(200, [&] { g.release(a); });                // no credit for the next visit in place
  g.run();
  EXPECT_EQ(g.rescored, (std::vector<std::uint32_t>{a, b}));
  EXPECT_EQ(g.compensate_times, secs({60, 70, 160}));
  EXPECT_FALSE(g.u.boosted(d));
  EXPECT_FALSE(g.u.boosted(v));
  const auto res = g.r.finish();
  EXPECT_EQ(res->used_in_place, 2u);
  EXPECT_EQ(res->granted, 0u);
  EXPECT_EQ(res->credited.arrived, 2u);
  EXPECT_EQ(res->credited.released, 1u);  // a, released at 200 after 200 s
  EXPECT_DOUBLE_EQ(res->credited.wait_s.mean(), 200.0);
}
