// The waiting page in the room by hand: every poll counted per second as the Redis commands
// it costs (fixed interval, status cache, server-suggested intervals), enters, removes and
// releases counted, and the refreshes of the suggestion scheduled.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/events.hpp"
#include "models/polling/waiting_page.hpp"
#include "models/queues/queues.hpp"
#include "models/users/users.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;
constexpr std::uint32_t k_step = 1000;  // the test's kind: run steps[arg] now

std::string scenario_json(const std::string& polling) {
  return R"({"name": "page", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 1},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1},
    "polling": )" +
         polling + R"(, "run": {"horizon_s": 1}})";
}

// A per-second series without its trailing zeros (its length is the page's business).
std::vector<std::uint64_t> trimmed(std::vector<std::uint64_t> v) {
  while (!v.empty() && v.back() == 0) v.pop_back();
  return v;
}

struct rig {
  explicit rig(const std::string& polling)
      : sc(testing_support::scenario_from(scenario_json(polling))),
        u(sc.policy, 1, 1, 2),
        q(sc, u),
        page(sc, sim, u, q, 1, 0) {}
  void at(double t_s, std::function<void()> f) {
    sim.schedule(sim::sim_time::from_seconds(t_s), models::p_arrival, k_step,
                 static_cast<std::uint32_t>(steps.size()));
    steps.push_back(std::move(f));
  }
  std::int64_t now() const { return sim.now().ns(); }
  std::uint32_t enter() {
    const auto user = u.add(now(), 0, false);
    q.enter(user, 0, 0, now());
    page.entered(user, 0, now());
    return user;
  }
  // The room's release of the list's head: returns when the user learns of it.
  std::int64_t release_head() {
    std::int64_t told = -1;
    q.pop(0, 1, now(), [&](std::uint32_t user) {
      told = page.released(user, 0, now());
      u.retire(user);
    });
    page.release_ran(now());
    return told;
  }
  void give_up(std::uint32_t user) {
    q.remove(user, now());
    page.gave_up(user, 0, now());
    u.retire(user);
  }
  void handle(const sim::event& e) {
    if (e.kind == k_step) {
      steps[e.arg]();
    } else if (e.kind == models::k_suggest) {
      suggest_times.push_back(e.time_ns);
      page.on_suggest(q.total(), false);
    }
  }
  bool done() const { return false; }

  models::scenario sc;
  sim::simulator sim;
  models::users u;
  models::queues q;
  models::waiting_page page;
  std::vector<std::function<void()>> steps;
  std::vector<std::int64_t> suggest_times;
};

}  // namespace

TEST(WaitingPage, FixedIntervalWithoutCacheEveryPollIsALookup) {
  rig r(R"({"interval_s": 2, "follow_share": 0})");
  r.page.start();  // a fixed interval: no refreshes
  std::int64_t told = 0;
  std::uint32_t b = 0;
  r.at(0, [&] { r.enter(); });      // A polls at 2, 4; released at 5
  r.at(1, [&] { b = r.enter(); });  // B polls at 3; gives up at 4.5
  r.at(3, [&] { r.enter(); });      // D polls at 5, 7, 9 until the end (10)
  r.at(4.5, [&] { r.give_up(b); });
  r.at(5, [&] { told = r.release_head(); });   // A learns of it at its next poll, 6
  r.at(6, [&] { r.page.moved(0, r.now()); });  // aging: a ZREM and a ZADD
  r.at(7, [&] { r.page.rescored(r.now()); });  // a credit in place: the same
  r.sim.run(r, {});
  EXPECT_EQ(told, 6 * s_ns);
  EXPECT_TRUE(r.suggest_times.empty());
  const auto res = r.page.finish(10 * s_ns);
  const auto& s = res.per_second;
  using v = std::vector<std::uint64_t>;
  EXPECT_EQ(trimmed(s.enter), (v{1, 1, 0, 1, 0, 0, 1, 1}));
  EXPECT_EQ(trimmed(s.remove), (v{0, 0, 0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(trimmed(s.release), (v{0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(trimmed(s.waiting_polls), (v{0, 0, 1, 1, 1, 1, 0, 1, 0, 1}));
  EXPECT_EQ(trimmed(s.lookups), (v{0, 0, 1, 1, 1, 1, 0, 1, 0, 1}));
  EXPECT_EQ(trimmed(s.discoveries), (v{0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(trimmed(s.uncached_discoveries), (v{0, 0, 0, 0, 0, 0, 1}));
  EXPECT_TRUE(trimmed(s.post_release_polls).empty());
  // Every series the same length.
  for (const auto* x : {&s.remove, &s.release, &s.waiting_polls, &s.lookups, &s.discoveries,
                        &s.post_release_polls, &s.uncached_discoveries})
    EXPECT_EQ(x->size(), s.enter.size());
  EXPECT_EQ(res.discovery_delay_s.count(), 1u);
  EXPECT_DOUBLE_EQ(res.discovery_delay_s.mean(), 1.0);
  EXPECT_EQ(res.rank_command, "ZRANK");
  EXPECT_EQ(res.enter_command, "ZADD");
  EXPECT_EQ(res.followed_users, 0u);
}

TEST(WaitingPage, TheCacheAnswersPollsBetweenLookups) {
  // Every 2 s with a 5 s cache: a lookup every third poll (2, 8, 14), the rest cached.
  rig r(R"({"interval_s": 2, "cache_s": 5, "follow_share": 0})");
  std::int64_t told = 0;
  r.at(0, [&] { r.enter(); });
  r.at(11, [&] { told = r.release_head(); });
  r.sim.run(r, {});
  // Released at 11: the poll at 12 is still answered from the cache; the lookup at 14 tells
  // the user (without the cache, the poll at 12 would have).
  EXPECT_EQ(told, 14 * s_ns);
  const auto res = r.page.finish(20 * s_ns);
  const auto& s = res.per_second;
  using v = std::vector<std::uint64_t>;
  EXPECT_EQ(trimmed(s.waiting_polls), (v{0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(trimmed(s.lookups), (v{0, 0, 1, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(trimmed(s.post_release_polls), (v{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(trimmed(s.discoveries), (v{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(trimmed(s.uncached_discoveries), (v{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_DOUBLE_EQ(res.discovery_delay_s.mean(), 3.0);
}

TEST(WaitingPage, SuggestedIntervalsFollowTheQueueLengthAtEachRefresh) {
  // 1 s while fewer than 3 wait, 2 s from 3; refreshed every 5 s from time 0.
  rig r(R"({"suggest": [{"above": 0, "interval_s": 1}, {"above": 3, "interval_s": 2}],
            "suggest_every_s": 5, "follow_share": 0})");
  r.page.start();
  std::vector<std::uint32_t> early;
  std::int64_t told = 0;
  r.at(4, [&] {  // three users: the refresh at 5 sees 3 waiting
    for (int i = 0; i < 3; ++i) early.push_back(r.enter());
  });
  r.at(5.5, [&] {  // they poll once, at 5 (the suggestion for (0, 5] was 1 s), and leave
    for (auto user : early) r.give_up(user);
  });
  r.at(6, [&] { r.enter(); });  // answered 2 s: polls at 8 and 10
  r.at(12, [&] { told = r.release_head(); });
  r.sim.run(r, {sim::sim_time::from_seconds(16), ~std::uint64_t{0}});
  EXPECT_EQ(r.suggest_times, (std::vector<std::int64_t>{0, 5 * s_ns, 10 * s_ns, 15 * s_ns}));
  EXPECT_EQ(told, 12 * s_ns);  // the poll at 12 finds the release
  const auto res = r.page.finish(16 * s_ns);
  using v = std::vector<std::uint64_t>;
  EXPECT_EQ(trimmed(res.per_second.waiting_polls), (v{0, 0, 0, 0, 0, 3, 0, 0, 1, 0, 1}));
  EXPECT_EQ(trimmed(res.per_second.discoveries), (v{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(WaitingPage, NoRefreshAfterTheRoomIsDone) {
  rig r(R"({"suggest": [{"above": 0, "interval_s": 1}], "suggest_every_s": 5,
            "follow_share": 0})");
  r.page.start();
  ASSERT_EQ(r.sim.queue().size(), 1u);  // the first refresh, at 0
  r.sim.queue().pop();
  r.page.on_suggest(0, true);
  EXPECT_TRUE(r.sim.queue().empty());
  r.page.on_suggest(0, false);
  ASSERT_EQ(r.sim.queue().size(), 1u);
  EXPECT_EQ(r.sim.queue().top().time_ns, 10 * s_ns);  // the second refresh after the first
}
