// The room's books by hand: waits, abandonments and refusals under each warm-up rule, the
// queue-length area (Little's law on the sample path: area = completed + censored waits),
// peaks, samples and the censored waits of users still queued at the end.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "models/queues/queues.hpp"
#include "models/room/ledger.hpp"
#include "models/users/users.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// Two classes, each in its own list; `run` is the scenario's run block.
std::string two_lists(const std::string& run) {
  return R"({"name": "ledger",
  "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"policy": "fifo", "time_unit": "ms", "lists": [
    {"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"]}]},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1, "selection": {"kind": "strict"}},
  "run": )" +
         run + "}";
}

// The room's side: users enter and leave the real lists, the ledger hears of each change.
struct rig {
  explicit rig(const std::string& run = R"({"horizon_s": 10})")
      : sc(testing_support::scenario_from(two_lists(run))),
        u(sc.policy, 2, 1, 2),
        q(sc, u),
        book(sc, 7, 3) {}
  std::uint32_t enter(double t_s, std::uint32_t c) {
    const std::int64_t now = static_cast<std::int64_t>(t_s * 1e9);
    book.arrived(c);
    book.queue_changed(now, q.total());
    const std::uint32_t user = u.add(now, c, false);
    q.enter(user, c, c, now);
    book.entered(c, c, q.total(), q.size(c));
    return user;
  }
  // Releases the head of list l at t_s; returns the wait the ledger saw.
  std::int64_t release(double t_s, std::uint32_t l) {
    const std::int64_t now = static_cast<std::int64_t>(t_s * 1e9);
    book.queue_changed(now, q.total());
    std::int64_t wait = -1;
    q.pop(l, 1, now, [&](std::uint32_t user) {
      wait = book.released(u.cls(user), l, u.entry_ns(user), now);
      u.retire(user);
    });
    return wait;
  }
  std::int64_t abandon(double t_s, std::uint32_t user, bool paid_later) {
    const std::int64_t now = static_cast<std::int64_t>(t_s * 1e9);
    book.queue_changed(now, q.total());
    const std::uint32_t c = u.cls(user);
    const std::int64_t entry = u.entry_ns(user);
    q.remove(user, now);
    const std::int64_t waited = book.abandoned(c, entry, now, paid_later);
    u.retire(user);
    return waited;
  }
  const models::room_result& finish(double t_s) {
    book.finish(q, u, static_cast<std::int64_t>(t_s * 1e9));
    return book.result();
  }

  models::scenario sc;
  models::users u;
  models::queues q;
  models::ledger book;
};

TEST(Ledger, NamesTheRunItsClassesAndLists) {
  rig r;
  const auto& res = r.book.result();
  EXPECT_EQ(res.seed, 7u);
  EXPECT_EQ(res.replication, 3u);
  EXPECT_EQ(res.class_names, (std::vector<std::string>{"vip", "normal"}));
  EXPECT_EQ(res.list_names, (std::vector<std::string>{"vip", "normal"}));
  EXPECT_EQ(res.by_class.size(), 2u);
  EXPECT_EQ(res.by_list.size(), 2u);
}

// Length 1 on [0,2), 2 on [2,3), 1 on [3,7), 2 on [7,10): area 14 user-seconds = the wait
// of the released user (3 s) + the censored waits of the two still queued (8 s + 3 s).
TEST(Ledger, AreaEqualsCompletedPlusCensoredWaits) {
  rig r;
  r.enter(0, 0);
  r.enter(2, 1);
  EXPECT_EQ(r.release(3, 0), 3 * s_ns);
  r.enter(7, 0);
  const auto& res = r.finish(10);
  EXPECT_DOUBLE_EQ(res.queue_length_area, 14.0);
  EXPECT_DOUBLE_EQ(res.queue_length_area_counted, 14.0);  // no warm-up: the same area
  EXPECT_DOUBLE_EQ(res.censored_wait_s, 11.0);
  EXPECT_DOUBLE_EQ(res.by_class[0].wait_s.mean() + res.censored_wait_s, res.queue_length_area);
  EXPECT_EQ(res.by_class[0].released, 1u);
  EXPECT_EQ(res.by_list[0].released, 1u);
  EXPECT_EQ(res.by_class[0].waiting_at_end, 1u);
  EXPECT_EQ(res.by_class[1].waiting_at_end, 1u);
  EXPECT_EQ(res.by_class[0].censored_s.count(), 1u);
  EXPECT_DOUBLE_EQ(res.by_class[0].censored_s.mean(), 3.0);
  EXPECT_DOUBLE_EQ(res.by_class[1].censored_s.mean(), 8.0);
  ASSERT_TRUE(res.by_class[1].censored_ns);
  EXPECT_EQ(res.by_class[1].censored_ns->max(), static_cast<std::uint64_t>(8 * s_ns));
  EXPECT_FALSE(res.by_class[1].abandon_ns);  // absent while nobody gave up
  EXPECT_EQ(res.overall.arrived, 3u);
  EXPECT_EQ(res.overall.released, 1u);
  EXPECT_EQ(res.overall.waiting_at_end, 2u);
  EXPECT_EQ(res.peak_queue_length, 2u);
  EXPECT_EQ(res.by_list[0].peak_length, 1u);
  EXPECT_EQ(res.by_list[1].peak_length, 1u);
  EXPECT_DOUBLE_EQ(res.counted_from_s, 0.0);
  EXPECT_EQ(res.warmup_dropped, 0u);
}

// warmup_s = 5: the user who entered at 0 leaves uncounted (its wait dropped, its
// abandonment not in the waits), refusals count by their time, and the counted area runs
// from 5 s.
TEST(Ledger, WarmUpByTimeCountsByEntryTime) {
  rig r(R"({"horizon_s": 10, "warmup_s": 5})");
  const std::uint32_t early = r.enter(0, 1);
  r.book.sold_out(0, 1 * s_ns);
  r.enter(4, 0);
  r.enter(6, 0);
  r.book.sold_out(0, 6 * s_ns);
  EXPECT_EQ(r.release(8, 0), 4 * s_ns);  // the one from 4 s: released, not recorded
  EXPECT_EQ(r.abandon(9, early, true), 9 * s_ns);
  EXPECT_EQ(r.release(9.5, 0), static_cast<std::int64_t>(3.5 * 1e9));  // the one from 6 s
  const auto& res = r.finish(10);
  EXPECT_EQ(res.by_class[0].released, 2u);
  EXPECT_EQ(res.by_class[0].wait_s.count(), 1u);
  EXPECT_DOUBLE_EQ(res.by_class[0].wait_s.mean(), 3.5);
  EXPECT_EQ(res.warmup_dropped, 1u);
  EXPECT_EQ(res.by_class[0].refused, 2u);
  EXPECT_EQ(res.by_class[0].refused_counted, 1u);
  EXPECT_EQ(res.by_class[1].abandoned, 1u);
  EXPECT_EQ(res.by_class[1].paid_later, 1u);
  EXPECT_EQ(res.by_class[1].abandon_s.count(), 0u);
  // Whole area: 1 on [0,4), 2 on [4,6), 3 on [6,8), 2 on [8,9), 1 on [9,9.5) = 4+4+6+2+0.5.
  EXPECT_DOUBLE_EQ(res.queue_length_area, 16.5);
  // From 5 s: 2 on [5,6), 3 on [6,8), 2 on [8,9), 1 on [9,9.5).
  EXPECT_DOUBLE_EQ(res.queue_length_area_counted, 10.5);
  EXPECT_DOUBLE_EQ(res.counted_from_s, 5.0);
}

// warmup_customers = 2: counting starts at the second release (a direct admission counts as
// one); refusals and abandonments before it are not counted.
TEST(Ledger, WarmUpByCustomersStartsAtTheLastDroppedRelease) {
  rig r(R"({"horizon_s": 10, "warmup_customers": 2})");
  r.book.arrived(1);
  r.book.served_at_once(1, 1 * s_ns);
  r.enter(1.5, 0);
  r.enter(2, 0);
  r.book.sold_out(1, 2 * s_ns);
  EXPECT_EQ(r.release(3, 0), static_cast<std::int64_t>(1.5 * 1e9));
  r.book.sold_out(1, 4 * s_ns);
  EXPECT_EQ(r.release(5, 0), 3 * s_ns);
  const auto& res = r.finish(6);
  EXPECT_EQ(res.warmup_dropped, 2u);
  EXPECT_EQ(res.by_class[0].wait_s.count(), 1u);
  EXPECT_DOUBLE_EQ(res.by_class[0].wait_s.mean(), 3.0);
  EXPECT_EQ(res.by_class[1].released, 1u);
  EXPECT_EQ(res.by_class[1].wait_s.count(), 0u);
  EXPECT_EQ(res.by_class[1].refused, 2u);
  EXPECT_EQ(res.by_class[1].refused_counted, 1u);
  EXPECT_DOUBLE_EQ(res.counted_from_s, 3.0);
  // Counted from 3 s: 1 waiting on [3,5).
  EXPECT_DOUBLE_EQ(res.queue_length_area_counted, 2.0);
}

TEST(Ledger, AServedAtOnceVisitWaitsZero) {
  rig r;
  r.book.arrived(1);
  r.book.served_at_once(1, 2 * s_ns);
  const auto& res = r.finish(3);
  EXPECT_EQ(res.by_class[1].released, 1u);
  EXPECT_EQ(res.by_class[1].wait_ns.count(), 1u);
  EXPECT_EQ(res.by_class[1].wait_ns.max(), 0u);
  EXPECT_EQ(res.by_list[1].released, 0u);  // it never was in a list
  EXPECT_DOUBLE_EQ(res.queue_length_area, 0.0);
}

// The active-user gate's refusals count as stock refusals do: in refused_counted (what the
// refused_share SLA metric reads) once the warm-up is over, not before it.
TEST(Ledger, TheGatesRefusalsCountUnderTheWarmUpRuleAsSoldOutDoes) {
  rig r(R"({"horizon_s": 10, "warmup_s": 5})");
  r.book.turned_away(0, 1'000'000'000);  // in the warm-up
  r.book.sold_out(0, 1'000'000'000);
  r.book.turned_away(0, 6'000'000'000);  // after it
  r.book.sold_out(0, 6'000'000'000);
  const auto& res = r.finish(1);
  EXPECT_EQ(res.by_class[0].refused, 4u);
  EXPECT_EQ(res.by_class[0].refused_counted, 2u);
}

TEST(Ledger, SamplesCountReleasesSinceTheLastOne) {
  rig r;
  r.enter(0, 0);
  r.enter(0, 1);
  r.release(0.5, 0);
  r.book.served_at_once(1, s_ns / 2);
  EXPECT_TRUE(r.book.released_since_sample());
  EXPECT_EQ(r.book.released_from_lists(), 1u);
  EXPECT_FALSE(r.book.sampled_at(1.0));
  r.book.sample(1.0, r.q.total(), {0.25, 0.75});
  EXPECT_FALSE(r.book.released_since_sample());
  EXPECT_TRUE(r.book.sampled_at(1.0));
  EXPECT_FALSE(r.book.sampled_at(2.0));
  r.book.sample(2.0, r.q.total());
  const auto& s = r.book.result().samples;
  ASSERT_EQ(r.book.sample_count(), 2u);
  EXPECT_DOUBLE_EQ(s[0].t_s, 1.0);
  EXPECT_EQ(s[0].length, 1u);
  EXPECT_EQ(s[0].by_class, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(s[0].released_in_interval, 2u);
  EXPECT_EQ(s[0].expected_rank_by_class, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(s[1].released_in_interval, 0u);
  EXPECT_TRUE(s[1].expected_rank_by_class.empty());
}

TEST(Ledger, AgingCountsMovesAndPeaks) {
  rig r;
  r.book.aged_in(0, 4);
  r.book.aged_in(0, 2);
  const auto& res = r.book.result();
  EXPECT_EQ(res.by_list[0].aged_in, 2u);
  EXPECT_EQ(res.by_list[0].peak_length, 4u);
  EXPECT_EQ(res.by_list[1].aged_in, 0u);
}

}  // namespace
