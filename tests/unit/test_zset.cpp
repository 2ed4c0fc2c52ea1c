#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/zset/zset.hpp"
#include "sim/random.hpp"

using namespace waitroom::models;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
using pairs = std::vector<std::pair<std::string, double>>;
}  // namespace

TEST(Zset, EmptySetAnswersLikeRedis) {
  string_zset z;
  EXPECT_EQ(z.zcard(), 0u);
  EXPECT_FALSE(z.zscore("a"));
  EXPECT_FALSE(z.zrank("a"));
  EXPECT_FALSE(z.zrevrank("a"));
  EXPECT_EQ(z.zrem("a"), 0);
  EXPECT_EQ(z.zcount({-inf}, {inf}), 0u);
  EXPECT_TRUE(z.zrange(0, -1).empty());
  EXPECT_TRUE(z.zpopmin(5).empty());
}

TEST(Zset, EqualScoresOrderByMemberBytes) {
  string_zset z;
  z.zadd(1, "b");
  z.zadd(1, "a");
  z.zadd(1, "ab");
  z.zadd(1, "\xff");  // bytes compare unsigned: 0xff sorts after letters
  z.zadd(0, "z");
  EXPECT_EQ(z.zrange(0, -1), (pairs{{"z", 0}, {"a", 1}, {"ab", 1}, {"b", 1}, {"\xff", 1}}));
  EXPECT_EQ(*z.zrank("ab"), 2u);
  EXPECT_EQ(*z.zrevrank("ab"), 2u);
  EXPECT_EQ(*z.zrevrank("z"), 4u);
}

TEST(Zset, ZaddFlagsFollowRedis) {
  string_zset z;
  EXPECT_EQ(z.zadd(5, "m"), 1);
  EXPECT_EQ(z.zadd(5, "m"), 0);                // same score: nothing changes
  EXPECT_EQ(z.zadd(6, "m"), 0);                // update counts only with CH
  EXPECT_EQ(z.zadd(7, "m", {.ch = true}), 1);  // CH counts the update
  EXPECT_EQ(z.zadd(1, "m", {.nx = true}), 0);  // NX never updates
  EXPECT_EQ(*z.zscore("m"), 7);
  EXPECT_EQ(z.zadd(1, "n", {.xx = true}), 0);  // XX never adds
  EXPECT_FALSE(z.zscore("n"));
  EXPECT_EQ(z.zadd(3, "m", {.gt = true, .ch = true}), 0);  // GT refuses a lower score
  EXPECT_EQ(*z.zscore("m"), 7);
  EXPECT_EQ(z.zadd(9, "m", {.gt = true, .ch = true}), 1);
  EXPECT_EQ(z.zadd(10, "m", {.lt = true, .ch = true}), 0);  // LT refuses a higher score
  EXPECT_EQ(z.zadd(2, "m", {.lt = true, .ch = true}), 1);
  EXPECT_EQ(*z.zscore("m"), 2);
  EXPECT_EQ(z.zadd(4, "new", {.gt = true}), 1);  // GT/LT do not prevent adding
  EXPECT_THROW(z.zadd(1, "x", {.nx = true, .xx = true}), zset_error);
  EXPECT_THROW(z.zadd(1, "x", {.gt = true, .lt = true}), zset_error);
  EXPECT_THROW(z.zadd(1, "x", {.nx = true, .gt = true}), zset_error);
  EXPECT_THROW(z.zadd(std::nan(""), "x"), zset_error);
  EXPECT_EQ(z.zcard(), 2u);
  // A multi-member ZADD is validated as a whole: nothing is added on error.
  EXPECT_THROW(z.zadd({{1.0, "p"}, {std::nan(""), "q"}}), zset_error);
  EXPECT_FALSE(z.zscore("p"));
}

TEST(Zset, InfiniteScoresAndRanges) {
  string_zset z;
  z.zadd(-inf, "lo");
  z.zadd(inf, "hi");
  z.zadd(0, "mid");
  z.zadd(5, "five");
  EXPECT_EQ(z.zrange(0, 0), (pairs{{"lo", -inf}}));
  EXPECT_EQ(z.zrange(-1, -1), (pairs{{"hi", inf}}));
  EXPECT_EQ(z.zcount({-inf}, {inf}), 4u);
  EXPECT_EQ(z.zcount({0}, {5}), 2u);
  EXPECT_EQ(z.zcount({0, true}, {5}), 1u);
  EXPECT_EQ(z.zcount({0, true}, {5, true}), 0u);
  EXPECT_EQ(z.zcount({5}, {0}), 0u);  // min > max
  EXPECT_EQ(z.zrangebyscore({0}, {inf}), (pairs{{"mid", 0}, {"five", 5}, {"hi", inf}}));
  EXPECT_EQ(z.zrangebyscore({0}, {inf}, 1, 1), (pairs{{"five", 5}}));
  EXPECT_TRUE(z.zrangebyscore({0}, {inf}, -1, 1).empty());
  EXPECT_EQ(z.zrange(2, 100), (pairs{{"five", 5}, {"hi", inf}}));
  EXPECT_EQ(z.zrange(-100, 0), (pairs{{"lo", -inf}}));
  EXPECT_TRUE(z.zrange(3, 2).empty());
  EXPECT_TRUE(z.zrange(10, 20).empty());
}

TEST(Zset, ZpopminCounts) {
  string_zset z;
  for (int i = 0; i < 5; ++i) z.zadd(i, "m" + std::to_string(i));
  EXPECT_TRUE(z.zpopmin(0).empty());
  EXPECT_THROW(z.zpopmin(-1), zset_error);
  EXPECT_EQ(z.zpopmin(), (pairs{{"m0", 0}}));
  EXPECT_EQ(z.zpopmin(2), (pairs{{"m1", 1}, {"m2", 2}}));
  EXPECT_EQ(z.zpopmin(10), (pairs{{"m3", 3}, {"m4", 4}}));
  EXPECT_EQ(z.zcard(), 0u);
  EXPECT_FALSE(z.zscore("m3"));
  z.zadd(1, "m3");  // a popped member can come back
  EXPECT_EQ(*z.zrank("m3"), 0u);
}

// Random operations against std::set as the reference, large enough to split leaves and
// grow several levels, checking every tree invariant along the way.
TEST(Zset, RandomisedAgainstReference) {
  token_zset z(12345);
  auto key = [&](double s, std::uint32_t id) { return std::pair{s, z.store().token(id)}; };
  std::set<std::pair<double, std::uint64_t>> ref;
  std::vector<double> score_of(60000, std::nan(""));
  waitroom::sim::rng r(7);
  for (int step = 0; step < 400000; ++step) {
    auto id = static_cast<std::uint32_t>(r.below(60000));
    std::uint64_t op = r.below(10);
    if (op < 6) {
      double s = static_cast<double>(r.below(2000));  // many ties
      if (!std::isnan(score_of[id])) ref.erase(key(score_of[id], id));
      z.zadd(s, id);
      score_of[id] = s;
      ref.insert(key(s, id));
    } else if (op < 8) {
      bool present = !std::isnan(score_of[id]);
      ASSERT_EQ(z.zrem(id), present ? 1 : 0);
      if (present) ref.erase(key(score_of[id], id));
      score_of[id] = std::nan("");
    } else if (op < 9) {
      auto n = r.below(40);
      auto popped = z.zpopmin(static_cast<std::int64_t>(n));
      for (auto& [m, s] : popped) {
        ASSERT_EQ(key(s, m), *ref.begin());
        ref.erase(ref.begin());
        score_of[m] = std::nan("");
      }
    } else if (!std::isnan(score_of[id])) {
      auto it = ref.find(key(score_of[id], id));
      ASSERT_EQ(*z.zrank(id), static_cast<std::uint64_t>(std::distance(ref.begin(), it)));
    }
    ASSERT_EQ(z.zcard(), ref.size());
    if (step % 20000 == 0) {
      ASSERT_TRUE(z.tree().check()) << "step " << step;
    }
  }
  ASSERT_TRUE(z.tree().check());
  // Ranges and counts agree with the reference at the end.
  std::size_t i = 0;
  for (auto& [m, s] : z.zrange(0, -1)) {
    auto it = std::next(ref.begin(), static_cast<std::ptrdiff_t>(i++));
    ASSERT_EQ(key(s, m), *it);
  }
  std::size_t in_range = 0;
  for (auto& k : ref) in_range += k.first >= 100 && k.first < 900;
  EXPECT_EQ(z.zcount({100}, {900, true}), in_range);
}

// A millisecond's ties wait unordered at the tail until something needs their order
// (order_tree.hpp): every operation while such a run is pending (the rank, range, count and
// removal of its members, a pop reaching into it, a member moved out of it, an entry below
// it) against std::set, with the tree's invariants checked after each.
TEST(Zset, OperationsOnAPendingTieRunAgainstReference) {
  token_zset z(4242);
  auto key = [&](double s, std::uint32_t id) { return std::pair{s, z.store().token(id)}; };
  std::set<std::pair<double, std::uint64_t>> ref;
  std::map<std::uint64_t, std::uint32_t> id_of;  // token -> member
  waitroom::sim::rng r(5);
  std::uint32_t next_id = 0;
  auto add = [&](double s) {
    z.zadd(s, next_id);
    ref.insert(key(s, next_id));
    id_of[z.store().token(next_id)] = next_id;
    ++next_id;
  };
  auto rank_of = [&](std::set<std::pair<double, std::uint64_t>>::iterator it) {
    return static_cast<std::uint64_t>(std::distance(ref.begin(), it));
  };
  for (int ms = 0; ms < 3000; ++ms) {
    const auto ties = 1 + r.below(40);
    for (std::uint64_t k = 0; k < ties; ++k) add(ms);
    // The run of this millisecond: members with score ms, in the reference's order.
    auto run_begin = ref.lower_bound({static_cast<double>(ms), 0});
    const auto pick = [&] {
      auto it = run_begin;
      std::advance(it, static_cast<std::ptrdiff_t>(r.below(
                           static_cast<std::uint64_t>(std::distance(run_begin, ref.end())))));
      return it;
    };
    switch (r.below(8)) {
      case 0: {  // ZRANK of a pending member
        auto it = pick();
        ASSERT_EQ(*z.zrank(id_of[it->second]), rank_of(it)) << "ms " << ms;
        break;
      }
      case 1: {  // ZRANGE over the run's end
        const auto n = static_cast<std::int64_t>(ref.size());
        const auto from = std::max<std::int64_t>(0, n - 1 - static_cast<std::int64_t>(ties) - 3);
        auto got = z.zrange(from, n - 1);
        auto it = std::next(ref.begin(), from);
        for (auto& [m, s] : got) ASSERT_EQ(key(s, m), *it++) << "ms " << ms;
        ASSERT_EQ(it, ref.end());
        break;
      }
      case 2: {  // ZREM of a pending member
        auto it = pick();
        ASSERT_EQ(z.zrem(id_of[it->second]), 1);
        ref.erase(it);
        break;
      }
      case 3: {  // ZCOUNT with the run inside and outside the range
        std::size_t below = 0, upto = 0;
        for (auto& k : ref) {
          below += k.first < ms;
          upto += k.first <= ms;
        }
        ASSERT_EQ(z.zcount({-1e9}, {static_cast<double>(ms), true}), below);
        ASSERT_EQ(z.zcount({-1e9}, {static_cast<double>(ms)}), upto);
        break;
      }
      case 4: {  // a pop reaching into the run
        const auto n = ref.size() - r.below(ties);
        auto popped = z.zpopmin(static_cast<std::int64_t>(n));
        ASSERT_EQ(popped.size(), n) << "ms " << ms;
        for (auto& [m, s] : popped) {
          ASSERT_EQ(key(s, m), *ref.begin()) << "ms " << ms;
          ref.erase(ref.begin());
        }
        break;
      }
      case 5: {  // a pending member moved below the run, then one more tie
        auto it = pick();
        const std::uint32_t m = id_of[it->second];
        ref.erase(it);
        z.zadd(ms - 0.5, m);
        ref.insert(key(ms - 0.5, m));
        add(ms);
        break;
      }
      case 6:  // an entry below the run (a VIP 10 s back) while it is pending
        add(ms - 10000.0);
        break;
      default:
        break;
    }
    ASSERT_EQ(z.zcard(), ref.size());
    ASSERT_TRUE(z.tree().check()) << "ms " << ms;
  }
  auto it = ref.begin();
  for (auto& [m, s] : z.zrange(0, -1)) ASSERT_EQ(key(s, m), *it++);
  ASSERT_EQ(it, ref.end());
}

// The flash crowd's pattern against std::set: scores are arrival milliseconds with many
// ties at the tail (the tree's fast path into its last child), a fifth scored 10 s back
// (into the middle), batches popped from the head, ranks checked throughout.
TEST(Zset, TailTiesAndOffsetsAgainstReference) {
  token_zset z(99);
  auto key = [&](double s, std::uint32_t id) { return std::pair{s, z.store().token(id)}; };
  std::set<std::pair<double, std::uint64_t>> ref;
  std::vector<double> score_of;
  waitroom::sim::rng r(21);
  std::uint32_t next_id = 0;
  for (int ms = 0; ms < 30000; ++ms) {
    for (auto k = r.below(12); k > 0; --k) {
      const double s = r.below(5) == 0 ? ms - 10000.0 : ms;
      z.zadd(s, next_id);
      ref.insert(key(s, next_id));
      score_of.push_back(s);
      ++next_id;
    }
    if (ms % 200 == 199) {
      for (auto& [m, s] : z.zpopmin(static_cast<std::int64_t>(r.below(1500)))) {
        ASSERT_EQ(key(s, m), *ref.begin());
        ref.erase(ref.begin());
      }
      ASSERT_TRUE(z.tree().check()) << "ms " << ms;
    }
    if (ms % 97 == 0 && !ref.empty()) {  // a rank and a removal somewhere in the set
      auto it = std::next(ref.begin(), static_cast<std::ptrdiff_t>(r.below(ref.size())));
      const auto rank = static_cast<std::int64_t>(std::distance(ref.begin(), it));
      auto [m, s] = z.zrange(rank, rank)[0];
      ASSERT_EQ(key(s, m), *it);
      ASSERT_EQ(*z.zrank(m), static_cast<std::uint64_t>(rank));
      ASSERT_EQ(z.zrem(m), 1);
      ref.erase(it);
    }
    ASSERT_EQ(z.zcard(), ref.size());
  }
  ASSERT_TRUE(z.tree().check());
  // In step with the reference (std::next from the start each time was quadratic: ~50k left).
  auto it = ref.begin();
  for (auto& [m, s] : z.zrange(0, -1)) {
    ASSERT_NE(it, ref.end());
    ASSERT_EQ(key(s, m), *it++);
  }
  ASSERT_EQ(it, ref.end());
}

// A millisecond's ties are sorted by tie key when the next score comes (order_tree::sort_run:
// bucket pass, then insertion sort). Runs of every size the bucket pass sees, with keys spread
// over 64 bits (tokens), packed into a small range, and colliding in buckets, and runs longer
// than the unsorted buffer (sealed at max_pending, the rest inserted one by one), must come
// out in exactly std::sort's order, and rank and remove like it.
TEST(Zset, TieRunsOfEverySizeComeOutInTieKeyOrder) {
  struct keyed_store {
    std::vector<std::uint64_t> keys;
    std::uint64_t tie_key(std::uint32_t id) const { return keys[id]; }
    double score(std::uint32_t id) const { return id + 1 == keys.size() ? 2.0 : 1.0; }
  };
  waitroom::sim::rng r(31);
  for (const std::size_t n : {2, 31, 32, 33, 100, 1000, 4097, 9000, 40000})
    for (int spread = 0; spread < 3; ++spread) {
      keyed_store store;
      for (std::size_t i = 0; i < n; ++i)
        store.keys.push_back(spread == 0   ? r.next()                          // tokens
                             : spread == 1 ? 1000 + (i * 7919) % n             // a small range
                                           : (r.next() >> 52) * 1000003 + i);  // few top bits
      store.keys.push_back(0);  // the member with the next score, which seals the run
      order_tree<keyed_store> tree(&store);
      for (std::uint32_t i = 0; i < n; ++i) tree.insert(1.0, i);
      tree.insert(2.0, static_cast<std::uint32_t>(n));
      std::vector<std::uint64_t> want(store.keys.begin(), store.keys.end() - 1);
      std::sort(want.begin(), want.end());
      std::vector<std::uint64_t> got;
      tree.for_range(0, n, [&](zentry e) { got.push_back(store.keys[e.id]); });
      ASSERT_EQ(got, want) << n << " ties, spread " << spread;
      ASSERT_TRUE(tree.check()) << n << " ties, spread " << spread;
      // Ranks and removals among the sealed run's members.
      for (int k = 0; k < 20; ++k) {
        const auto id = static_cast<std::uint32_t>(r.below(n));
        const auto at = std::lower_bound(want.begin(), want.end(), store.keys[id]);
        if (at == want.end() || *at != store.keys[id]) continue;  // removed already
        ASSERT_EQ(tree.rank(1.0, id), static_cast<std::size_t>(at - want.begin()));
        ASSERT_TRUE(tree.erase(1.0, id));
        want.erase(at);
      }
      ASSERT_TRUE(tree.check()) << n << " ties, spread " << spread;
      ASSERT_EQ(tree.size(), want.size() + 1);
    }
}

TEST(Zset, SequentialInsertsPackLeavesDensely) {
  token_zset z(1);
  const std::uint32_t n = 200000;
  for (std::uint32_t i = 0; i < n; ++i) z.zadd(static_cast<double>(i), i);
  ASSERT_TRUE(z.tree().check());
  // Appends keep split leaves full: at most one partly filled leaf per level of splits.
  double fill = static_cast<double>(n) / (static_cast<double>(z.tree().leaf_count()) * 128.0);
  EXPECT_GT(fill, 0.99);
  std::size_t popped = z.pop_min(n / 2, [](std::uint32_t, double) {});
  EXPECT_EQ(popped, n / 2);
  EXPECT_EQ(*z.zrank(n / 2), 0u);
  ASSERT_TRUE(z.tree().check());
}

TEST(Zset, RangeByScoreLimitCountsLikeRedis) {
  string_zset z;
  for (int i = 0; i < 5; ++i) z.zadd(i, "m" + std::to_string(i));
  // LIMIT offset 0 is an empty reply; a negative count means all from the offset.
  EXPECT_TRUE(z.zrangebyscore({-inf}, {inf}, 0, 0).empty());
  EXPECT_EQ(z.zrangebyscore({-inf}, {inf}, 3, -1), (pairs{{"m3", 3}, {"m4", 4}}));
  EXPECT_EQ(z.zrangebyscore({1}, {3, true}, 0, 5), (pairs{{"m1", 1}, {"m2", 2}}));
  EXPECT_EQ(*z.zrevrank("m0"), 4u);
  EXPECT_EQ(*z.zrevrank("m4"), 0u);
}

TEST(Zset, RandomisedLargeSetKeepsItsCountsAgainstReference) {
  // RandomisedAgainstReference pops up to 40 members one step in ten, so its set stays a few
  // members in one leaf and never reaches the inner nodes' counts. Here pops are rare and
  // small: the set grows to ~30,000 members over hundreds of leaves while members are
  // re-scored, removed and ranked.
  token_zset z(777);
  auto key = [&](double s, std::uint32_t id) { return std::pair{s, z.store().token(id)}; };
  std::set<std::pair<double, std::uint64_t>> ref;
  std::vector<double> score_of(40000, std::nan(""));
  waitroom::sim::rng r(8);
  for (int step = 0; step < 120000; ++step) {
    auto id = static_cast<std::uint32_t>(r.below(40000));
    std::uint64_t op = r.below(100);
    if (op < 70) {  // add or re-score
      double s = static_cast<double>(r.below(5000));
      if (!std::isnan(score_of[id])) ref.erase(key(score_of[id], id));
      z.zadd(s, id);
      score_of[id] = s;
      ref.insert(key(s, id));
    } else if (op < 85) {
      bool present = !std::isnan(score_of[id]);
      ASSERT_EQ(z.zrem(id), present ? 1 : 0);
      if (present) ref.erase(key(score_of[id], id));
      score_of[id] = std::nan("");
    } else if (op < 86) {
      for (auto& [m, s] : z.zpopmin(2)) {
        ASSERT_EQ(key(s, m), *ref.begin());
        ref.erase(ref.begin());
        score_of[m] = std::nan("");
      }
    } else if (step % 64 == 0 && !std::isnan(score_of[id])) {  // std::distance is linear
      auto it = ref.find(key(score_of[id], id));
      ASSERT_EQ(*z.zrank(id), static_cast<std::uint64_t>(std::distance(ref.begin(), it)));
    }
    ASSERT_EQ(z.zcard(), ref.size());
    if (step % 10000 == 0) {
      ASSERT_TRUE(z.tree().check()) << "step " << step;
    }
  }
  EXPECT_GT(z.tree().leaf_count(), 200u);  // inner nodes were exercised
  ASSERT_TRUE(z.tree().check());
  std::size_t in_range = 0;
  for (auto& k : ref) in_range += k.first >= 1000 && k.first < 4000;
  EXPECT_EQ(z.zcount({1000}, {4000, true}), in_range);
}
