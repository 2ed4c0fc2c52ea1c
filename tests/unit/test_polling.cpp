// The polling model's pieces: the population walk against a poll-by-poll reference, the
// ETA estimators on release histories whose answer is known, and the shown rank.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "models/polling/polling.hpp"
#include "sim/random.hpp"

using namespace waitroom;
using models::polling_spec;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// One user, poll by poll, as the waiting page and the status endpoint would do it: a poll
// looks up Redis when there is no cached answer or it is cache_s old; the answer carries the
// interval to wait (the server's suggestion at that moment). Polls before `exit` find the
// user waiting; after a release, polls go on until a lookup tells the user.
struct reference_counts {
  std::map<std::int64_t, std::uint64_t> waiting, lookups, after, discovery, uncached_discovery;
};
void reference_walk(const models::poll_counter& pc, std::int64_t cache_ns, std::int64_t entry,
                    std::int64_t exit, bool released, std::uint32_t user, reference_counts& out) {
  std::int64_t interval = pc.interval_at(entry);
  std::int64_t t = entry + pc.start_offset(user) + interval;
  std::int64_t cached_at = -1;  // no answer yet
  bool uncached_told = false;
  for (;;) {
    const bool lookup = cached_at < 0 || t - cached_at >= cache_ns;
    if (t < exit) {
      ++out.waiting[t / s_ns];
      if (lookup) ++out.lookups[t / s_ns];
    } else {
      if (!released) return;
      if (!uncached_told) {  // without a cache this poll would have told the user
        ++out.uncached_discovery[t / s_ns];
        uncached_told = true;
      }
      if (lookup) {
        ++out.discovery[t / s_ns];
        return;
      }
      ++out.after[t / s_ns];
    }
    if (lookup) {
      cached_at = t;
      interval = pc.interval_at(t);
    }
    t += interval;
  }
}

void expect_same(const std::map<std::int64_t, std::uint64_t>& want,
                 const std::vector<std::uint64_t>& got, const char* what) {
  std::uint64_t total_want = 0, total_got = 0;
  for (auto [sec, n] : want) {
    total_want += n;
    ASSERT_LT(static_cast<std::size_t>(sec), got.size()) << what;
    EXPECT_EQ(got[static_cast<std::size_t>(sec)], n) << what << " at second " << sec;
  }
  for (auto n : got) total_got += n;
  EXPECT_EQ(total_got, total_want) << what;
}

void check_walk_against_reference(polling_spec spec) {
  models::poll_counter pc(spec, false, 1, 99);
  sim::rng rng(7, 0, "walk");
  // The server's suggestion over the first 2,000 s, from a random queue-length path.
  if (pc.suggests())
    for (int k = 0; k < 2000; ++k) pc.refresh_suggestion(rng.below(20000));
  reference_counts ref;
  const std::int64_t cache_ns = sim::sim_time::from_seconds(spec.cache_s).ns();
  for (std::uint32_t u = 0; u < 3000; ++u) {
    const auto entry = static_cast<std::int64_t>(rng.below(600'000'000'000ULL));
    const auto exit = entry + static_cast<std::int64_t>(rng.below(900'000'000'000ULL));
    const bool released = rng.below(4) != 0;
    reference_walk(pc, cache_ns, entry, exit, released, u, ref);
    const std::int64_t told = pc.walk(entry, exit, released, u);
    if (released) {
      EXPECT_GE(told, exit);
    } else {
      EXPECT_EQ(told, exit);
    }
  }
  const auto& s = pc.finish().per_second;
  expect_same(ref.waiting, s.waiting_polls, "waiting polls");
  expect_same(ref.lookups, s.lookups, "lookups");
  expect_same(ref.after, s.post_release_polls, "cached polls after release");
  expect_same(ref.discovery, s.discoveries, "release lookups");
  expect_same(ref.uncached_discovery, s.uncached_discoveries, "uncached release polls");
}

polling_spec fixed(double interval_s, double cache_s, double jitter_s = 0) {
  polling_spec spec;
  spec.interval_s = interval_s;
  spec.cache_s = cache_s;
  spec.start_jitter_s = jitter_s;
  return spec;
}

}  // namespace

TEST(Polling, WalkMatchesPollByPollReferenceFixedInterval) {
  check_walk_against_reference(fixed(3, 10));
  check_walk_against_reference(fixed(3, 10, 20));  // first polls beyond a whole cache cycle
  check_walk_against_reference(fixed(2.5, 0));     // no cache: every poll looks up
  // gcd(2.345 s, 1 s) = 5 ms: too fine a grid, counted poll by poll instead.
  check_walk_against_reference(fixed(2.345, 10));
}

TEST(Polling, WalkMatchesPollByPollReferenceSuggestedIntervals) {
  polling_spec spec;
  spec.suggest = {{0, 5.0}, {5000, 2.0}, {15000, 1.3}};
  spec.suggest_every_s = 1;
  spec.cache_s = 7;
  spec.start_jitter_s = 2;
  check_walk_against_reference(spec);
}

TEST(Polling, CacheLooksUpOncePerCeilCacheOverInterval) {
  // 3 s polls, 10 s cache: a lookup at 3, 15, 27, ... (every 4th poll).
  const polling_spec spec = fixed(3, 10);
  models::poll_counter pc(spec, false, 1);
  EXPECT_EQ(pc.polls_per_lookup(3 * s_ns), 4);
  const std::int64_t told = pc.walk(0, 100 * s_ns, true, 0);  // polls at 3..99 wait
  std::uint64_t polls = 0, lookups = 0;
  const auto& fin = pc.finish().per_second;
  for (auto n : fin.waiting_polls) polls += n;
  for (auto n : fin.lookups) lookups += n;
  EXPECT_EQ(polls, 33u);
  EXPECT_EQ(lookups, 9u);       // 3, 15, ..., 99
  EXPECT_EQ(told, 111 * s_ns);  // the next lookup after the release at 100 s
}

TEST(EtaBoard, ConstantReleasesGiveTheExactWait) {
  // 10 users every 200 ms from one list: 50/s. A user with 99 ahead is the 100th: 2 s.
  polling_spec spec;
  models::eta_board board(spec, 1);
  const std::int64_t tick = 200'000'000;
  for (int k = 1; k <= 100; ++k) {
    for (int i = 0; i < 10; ++i) board.left(0, true);
    board.round(k * tick);
  }
  const auto eta = board.estimate(0, 99, 100 * tick);
  for (std::size_t e = 0; e < models::eta_estimator_count; ++e)
    EXPECT_NEAR(eta[e], 2.0, 1e-9) << models::eta_estimator_names()[e];
}

TEST(EtaBoard, SmoothingWeightsTheLatestRoundsMost) {
  // Rounds of 1 s releasing 10, 20, 30, 40, 50, 60: the last five weighted 5..1 from the
  // latest: (5*60 + 4*50 + 3*40 + 2*30 + 1*20) / 15 = 46.67 users/s.
  polling_spec spec;
  models::eta_board board(spec, 1);
  board.round(0);
  for (int k = 1; k <= 6; ++k) {
    for (int i = 0; i < 10 * k; ++i) board.left(0, true);
    board.round(k * s_ns);
  }
  const auto eta = board.estimate(0, 699, 6 * s_ns);
  EXPECT_NEAR(eta[1], 700.0 / (700.0 / 15.0), 1e-9);
  EXPECT_NEAR(eta[0], 700.0 / (210.0 / 6.0), 1e-9);  // 210 released over 6 s
  // Recent leave rate over the last 10 s: all 210 since t = 0.
  EXPECT_NEAR(eta[2], 700.0 / 35.0, 1e-9);
}

TEST(EtaBoard, NoRateNoEstimate) {
  polling_spec spec;
  models::eta_board board(spec, 2);
  for (int k = 1; k <= 10; ++k) {
    board.left(0, true);
    board.round(k * s_ns);
  }
  const auto eta = board.estimate(1, 5, 10 * s_ns);  // list 1 never released anyone
  for (double e : eta) EXPECT_TRUE(std::isnan(e));
}

TEST(PollFollower, SmoothedRankDoesNotMoveBackWhereTheRawRankDoes) {
  polling_spec spec;
  spec.interval_s = 1;
  spec.cache_s = 0;
  spec.smooth_rank_s = 10;
  spec.follow_share = 1;
  models::poll_counter pc(spec, false, 1);
  models::poll_follower f(spec, 1, 1);
  f.start(7, 0, 0);
  const std::uint64_t ranks[] = {10, 12, 9, 11, 8};  // VIPs cut in at the 2nd and 4th poll
  std::int64_t t = s_ns;
  for (std::uint64_t rank : ranks) {
    auto* rec = f.find(7);
    ASSERT_NE(rec, nullptr);
    ASSERT_TRUE(models::poll_follower::due_lookup(*rec, t));
    models::poll_follower::answer a{rank, {1.0, 1.0, 1.0, 1.0}};
    t += f.poll(*rec, t, &a, pc);
  }
  f.finish(7, t, true);
  const auto& c = f.results()[0];
  EXPECT_EQ(c.users, 1u);
  EXPECT_EQ(c.polls, 5u);
  EXPECT_EQ(c.backwards_raw.mean(), 2.0);
  EXPECT_EQ(c.backwards_smoothed.mean(), 0.0);
  // Every poll predicted 1 s; the user was released at 6 s, so the realised remaining waits
  // were 5, 4, 3, 2, 1 s: errors -4 .. 0.
  EXPECT_EQ(c.eta[0].predictions, 5u);
  EXPECT_NEAR(c.eta[0].error_s.mean(), -2.0, 1e-6);
  EXPECT_NEAR(c.eta[0].abs_error_s.mean(), 2.0, 1e-6);
}

// The report's rank trails: the first users of a class with at least 10 polls, each poll's
// raw and smoothed rank; a user with fewer polls gives its place to a later one.
TEST(PollFollower, KeepsTheRankTrailsOfTheFirstUsersWithTenPolls) {
  polling_spec spec;
  spec.interval_s = 1;
  spec.cache_s = 0;
  spec.smooth_rank_s = 10;
  spec.follow_share = 1;
  models::poll_counter pc(spec, false, 1);
  models::poll_follower f(spec, 1, 1);
  auto follow = [&](std::uint32_t user, int polls, std::uint64_t first_rank) {
    f.start(user, 0, 0);
    std::int64_t t = s_ns;
    for (int k = 0; k < polls; ++k) {
      auto* rec = f.find(user);
      // Pushed back by one at every third poll, else one closer.
      std::uint64_t rank = first_rank - static_cast<std::uint64_t>(k) + (k % 3 == 2 ? 3 : 0);
      models::poll_follower::answer a{rank, {1.0, 1.0, 1.0, 1.0}};
      t += f.poll(*rec, t, &a, pc);
    }
    f.finish(user, t, true);
  };
  follow(1, 4, 50);  // too few polls: no trail, its place goes to the next
  follow(2, 12, 60);
  follow(3, 10, 70);
  follow(4, 11, 80);
  follow(5, 20, 90);  // the class has its 3 trails already
  const auto& trails = f.results()[0].trails;
  ASSERT_EQ(trails.size(), 3u);
  EXPECT_EQ(trails[0].user, 2u);
  EXPECT_EQ(trails[1].user, 3u);
  EXPECT_EQ(trails[2].user, 4u);
  ASSERT_EQ(trails[0].points.size(), 12u);
  for (std::size_t k = 0; k < 12; ++k) {
    const auto& p = trails[0].points[k];
    EXPECT_DOUBLE_EQ(p.t_s, 1.0 + static_cast<double>(k));
    EXPECT_EQ(p.raw, 60 - k + (k % 3 == 2 ? 3 : 0));
    // The smallest rank shown over the last 10 s never rises.
    if (k > 0) {
      EXPECT_LE(p.smoothed, trails[0].points[k - 1].smoothed);
    }
    EXPECT_LE(p.smoothed, p.raw);
  }
  // Merging replications keeps the first replication's trails, at most 3.
  models::follow_class_result merged;
  merged.merge(f.results()[0]);
  merged.merge(f.results()[0]);
  EXPECT_EQ(merged.trails.size(), 3u);
}

TEST(EtaBoard, TheFitsRateStartsFromTheServedPositionNow) {
  // 10 released a second for 50 rounds, then 100 more since the last round: the line's slope
  // is 10/s, and the user with 49 ahead is 50 releases away from the position now (5 s),
  // wherever the line itself would put the position.
  polling_spec spec;
  models::eta_board board(spec, 1);
  for (int k = 1; k <= 50; ++k) {
    for (int i = 0; i < 10; ++i) board.left(0, true);
    board.round(k * s_ns);
  }
  for (int i = 0; i < 100; ++i) board.left(0, true);
  const auto eta = board.estimate(0, 49, 50 * s_ns + s_ns / 2);
  EXPECT_NEAR(eta[3], 5.0, 1e-9);
  EXPECT_NEAR(eta[1], 5.0, 1e-9);  // the last rounds' rate is 10/s too
}
