// The release by hand: which users leave, from which list and in which order, for each way a
// policy releases (in list order, per unit through the policy's pick, a lottery's draws, one
// list), never more than wait, the units lost to an empty list's share, and the schedule's
// weights.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/queues/queues.hpp"
#include "models/release/releaser.hpp"
#include "models/users/users.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// Two classes, each in its own list (a lottery has no lists: one set per class), released by
// `selection`.
std::string two_lists(const std::string& selection, bool lists = true) {
  return R"({"name": "releaser",
  "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"policy": "fifo", "time_unit": "ms")" +
         std::string(lists ? R"(, "lists": [{"name": "vip", "classes": ["vip"]},
                                          {"name": "normal", "classes": ["normal"]}])"
                           : "") +
         R"(}, "release": {"mode": "tick", "interval_ms": 200, "batch": 1, "selection": )" +
         selection + R"(}, "run": {"horizon_s": 10}})";
}
const std::string lottery = R"({"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}})";

using taken = std::vector<std::pair<std::uint32_t, std::uint32_t>>;  // (user, list)

struct rig {
  explicit rig(const std::string& json)
      : sc(testing_support::scenario_from(json)),
        u(sc.policy, static_cast<std::uint32_t>(sc.classes.size()), 1, 2),
        q(sc, u),
        rel(sc, q, u, 5, 0) {}
  // n users of class c, one per second from t_s; returns their serials.
  std::vector<std::uint32_t> enter(std::uint32_t c, int n, double t_s = 0) {
    std::vector<std::uint32_t> out;
    for (int i = 0; i < n; ++i) {
      const auto now = static_cast<std::int64_t>((t_s + i) * 1e9);
      const std::uint32_t user = u.add(now, c, false);
      q.enter(user, c, sc.route[c][0], now);
      out.push_back(user);
    }
    return out;
  }
  taken release(std::uint64_t n, std::uint64_t expect_count) {
    taken out;
    const std::uint64_t got = rel.release(n, 100 * s_ns, [&](std::uint32_t user, std::uint32_t l) {
      out.emplace_back(user, l);
      u.retire(user);
    });
    EXPECT_EQ(got, expect_count);
    EXPECT_EQ(out.size(), got);
    return out;
  }

  models::scenario sc;
  models::users u;
  models::queues q;
  models::releaser rel;
};

TEST(Releaser, StrictTakesTheFirstListsUsersFirstInOrder) {
  rig r(two_lists(R"({"kind": "strict"})"));
  const auto normal = r.enter(1, 3);
  const auto vip = r.enter(0, 2, 5);
  const taken out = r.release(4, 4);
  EXPECT_EQ(out, (taken{{vip[0], 0}, {vip[1], 0}, {normal[0], 1}, {normal[1], 1}}));
  EXPECT_EQ(r.q.size(0), 0u);
  EXPECT_EQ(r.q.size(1), 1u);
  EXPECT_EQ(r.rel.lost_units(), 0u);
}

TEST(Releaser, NeverReleasesMoreThanWait) {
  rig r(two_lists(R"({"kind": "strict"})"));
  r.enter(0, 1);
  r.enter(1, 2);
  r.release(10, 3);
  EXPECT_EQ(r.q.total(), 0u);
  r.release(5, 0);  // nobody taken
}

// Smooth weighted round-robin 2:1 over three units: 0, 1, 0 (then again).
TEST(Releaser, RatioPicksAListPerUnit) {
  rig r(two_lists(R"({"kind": "ratio", "weights": [2, 1]})"));
  const auto vip = r.enter(0, 4);
  const auto normal = r.enter(1, 4);
  const taken out = r.release(6, 6);
  EXPECT_EQ(
      out,
      (taken{{vip[0], 0}, {normal[0], 1}, {vip[1], 0}, {vip[2], 0}, {normal[1], 1}, {vip[3], 0}}));
}

// Without work conservation the empty list's share is lost: of 6 units at 2:1 with the
// normal list empty, 2 are lost and 4 release VIPs.
TEST(Releaser, AnEmptyListsShareIsLostWithoutWorkConservation) {
  rig r(two_lists(R"({"kind": "ratio", "weights": [2, 1], "work_conserving": false})"));
  r.enter(0, 10);
  const taken out = r.release(6, 4);
  for (const auto& [user, l] : out) EXPECT_EQ(l, 0u);
  EXPECT_EQ(r.rel.lost_units(), 2u);
  // Work-conserving, the same units all release.
  rig wc(two_lists(R"({"kind": "ratio", "weights": [2, 1]})"));
  wc.enter(0, 10);
  wc.release(6, 6);
  EXPECT_EQ(wc.rel.lost_units(), 0u);
}

TEST(Releaser, TheScheduleChangesTheWeightsAndZeroWeightsStarve) {
  rig r(two_lists(R"({"kind": "ratio", "weights": [2, 1]})"));
  r.enter(1, 3);
  EXPECT_FALSE(r.rel.starves());
  r.rel.set_weights({1, 0});
  EXPECT_TRUE(r.rel.starves());  // only the normal list has users, at weight 0
  r.enter(0, 2, 10);
  EXPECT_FALSE(r.rel.starves());
  const taken out = r.release(2, 2);
  for (const auto& [user, l] : out) EXPECT_EQ(l, 0u);
}

// A lottery draws users from the classes' sets (reported as list 0), each user once.
TEST(Releaser, ALotteryDrawsEachUserOnce) {
  rig r(two_lists(lottery, false));
  ASSERT_TRUE(r.q.lottery());
  const auto vip = r.enter(0, 5);
  const auto normal = r.enter(1, 5, 10);
  const taken first = r.release(4, 4);
  const taken rest = r.release(100, 6);
  std::set<std::uint32_t> seen;
  for (const auto* part : {&first, &rest})
    for (const auto& [user, l] : *part) {
      EXPECT_EQ(l, 0u);
      EXPECT_TRUE(seen.insert(user).second);
    }
  std::set<std::uint32_t> all(vip.begin(), vip.end());
  all.insert(normal.begin(), normal.end());
  EXPECT_EQ(seen, all);
  EXPECT_EQ(r.q.total(), 0u);
}

// The same seed draws the same users (the selection stream is the releaser's own).
TEST(Releaser, TheSameSeedDrawsTheSameUsers) {
  const std::string json = two_lists(lottery, false);
  rig a(json), b(json);
  for (rig* r : {&a, &b}) {
    r->enter(0, 20);
    r->enter(1, 20);
  }
  EXPECT_EQ(a.release(15, 15), b.release(15, 15));
}

TEST(Releaser, OneListPopsInScoreOrder) {
  rig r(R"({"name": "one", "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 1},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}, "run": {"horizon_s": 10}})");
  const auto users = r.enter(0, 5);
  EXPECT_EQ(r.release(3, 3), (taken{{users[0], 0}, {users[1], 0}, {users[2], 0}}));
}

}  // namespace
