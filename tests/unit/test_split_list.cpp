// A list split into one sorted set per score class must behave exactly as the one sorted set
// it stands for: the same pops in the same order, ranks, heads and full scans, under
// millisecond ties (unsorted pending runs at each set's tail), classes cutting in ahead of
// each other, out-of-order scores, removals and pops of every size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "models/queues/split_list.hpp"
#include "models/zset/zset.hpp"
#include "sim/random.hpp"

namespace {

using namespace waitroom::models;

// What split_list and derived_store read of the users: their list, score and token.
struct fake_users {
  std::vector<std::uint8_t> list;
  std::vector<double> score;
  std::uint8_t list_of(std::uint32_t u) const { return list[u]; }
  void set_list(std::uint32_t u, std::uint8_t l) { list[u] = l; }
  double score_of(std::uint32_t u) const { return score[u]; }
  // Distinct per user, as users::token_of (a bijection of the serial).
  std::uint64_t token_of(std::uint32_t u) const { return waitroom::sim::mix64(u ^ 0x5bd1e995u); }
  std::vector<std::uint32_t> score_class_of;
  std::uint32_t score_class(std::uint32_t u) const { return score_class_of[u]; }
};

struct pair_of_lists {
  fake_users a, b;  // the split list's users and the reference set's: the same people
  split_list<fake_users> split{&a, 0, 3};
  zset<derived_store<fake_users>> ref{&b, std::uint8_t{0}};
  std::vector<std::uint32_t> waiting;

  void add(double score, std::uint32_t c) {
    const auto u = static_cast<std::uint32_t>(a.list.size());
    for (fake_users* o : {&a, &b}) {
      o->list.push_back(derived_store<fake_users>::no_list);
      o->score.push_back(score);
      o->score_class_of.push_back(c);
    }
    split.add(score, u);
    ref.zadd(score, u);
    waiting.push_back(u);
  }
  void remove_at(std::size_t i) {
    const std::uint32_t u = waiting[i];
    split.remove(u);
    ref.zrem(u);
    waiting[i] = waiting.back();
    waiting.pop_back();
  }
  std::vector<std::uint32_t> scan() const {
    std::vector<std::uint32_t> out;
    split.for_each([&](std::uint32_t u) { out.push_back(u); });
    return out;
  }
  std::vector<std::uint32_t> ref_scan() const {
    std::vector<std::uint32_t> out;
    ref.tree().for_range(0, ref.zcard(), [&](zentry e) { out.push_back(e.id); });
    return out;
  }
};

TEST(SplitList, BehavesAsOneSortedSet) {
  // grow: phases that take the list past split_list::split_at; else it stays short (one set).
  for (const bool grow : {true, false})
    for (const bool monotone : {true, false})
      for (const double per_ms : {0.3, 5.0, 200.0}) {  // users per millisecond: ties or none
        waitroom::sim::rng r(monotone ? 11 : 12);
        pair_of_lists p;
        const double offset[3] = {-10000.0, 0.0, -3000.0};  // VIPs cut in 10 s, boosted 3 s
        double t = 0;
        for (int step = 0; step < 30000; ++step) {
          // Phases of 2,000 steps: the list grows past split_list::split_at, then drains.
          const bool growing = grow && (step / 2000) % 2 == 0;
          const double x = growing ? 0.7 * r.uniform01() : r.uniform01();
          if (x < 0.70) {
            t += -std::log(r.uniform_open0()) / per_ms;
            const auto c = static_cast<std::uint32_t>(r.below(3));
            const double score =
                monotone ? std::floor(t) + offset[c] : std::floor(t - 20000.0 * r.uniform01());
            p.add(score, c);
          } else if (x < 0.78 && !p.waiting.empty()) {
            p.remove_at(static_cast<std::size_t>(r.below(p.waiting.size())));
          } else if (x < 0.95) {
            const std::uint64_t n = 1 + r.below(x < 0.9 ? 8 : 100);
            std::vector<std::uint32_t> got, want;
            const std::uint64_t n_got = p.split.pop_min(n, [&](std::uint32_t u) {
              // Gone from its set before the callback, as ZPOPMIN's member.
              EXPECT_EQ(p.a.list_of(u), derived_store<fake_users>::no_list);
              got.push_back(u);
              // Retired inside the callback (users.hpp may free its block): the list must not
              // read the user's score or list again.
              p.a.score[u] = std::nan("");
              p.a.list[u] = 0x33;
            });
            const std::uint64_t n_want =
                p.ref.pop_min(n, [&](std::uint32_t u, double) { want.push_back(u); });
            ASSERT_EQ(n_got, n_want) << "step " << step;
            ASSERT_EQ(got, want) << "step " << step << ", pop of " << n;
            std::erase_if(p.waiting, [&](std::uint32_t u) {
              return p.b.list_of(u) == derived_store<fake_users>::no_list;
            });
          } else if (!p.waiting.empty()) {
            const std::uint32_t u = p.waiting[r.below(p.waiting.size())];
            ASSERT_EQ(p.split.rank(u, p.a.score_of(u)), *p.ref.zrank(u)) << "step " << step;
            ASSERT_EQ(p.split.head_user(), p.ref.tree().at(0).id) << "step " << step;
          }
          ASSERT_EQ(p.split.size(), p.ref.zcard()) << "step " << step;
          if (step % 5000 == 0) {
            ASSERT_EQ(p.scan(), p.ref_scan()) << "step " << step;
          }
        }
        ASSERT_EQ(p.scan(), p.ref_scan());
        EXPECT_EQ(p.split.split(), grow);  // split once it grew past split_at, never if short
        // Drained by one large pop.
        std::vector<std::uint32_t> got, want;
        p.split.pop_min(p.split.size() + 5, [&](std::uint32_t u) { got.push_back(u); });
        p.ref.pop_min(p.ref.zcard() + 5, [&](std::uint32_t u, double) { want.push_back(u); });
        ASSERT_EQ(got, want);
        EXPECT_EQ(p.split.size(), 0u);
        EXPECT_TRUE(p.scan().empty());
      }
}

// A short list stays one set; a long one splits by class and stays split.
TEST(SplitList, SplitsWhenLong) {
  pair_of_lists p;
  for (std::uint32_t i = 0; i + 1 < split_list<fake_users>::split_at; ++i)
    p.add(static_cast<double>(i), i % 3);
  EXPECT_FALSE(p.split.split());
  p.add(0.5, 1);
  EXPECT_TRUE(p.split.split());
  EXPECT_EQ(p.scan(), p.ref_scan());
  p.split.pop_min(p.split.size(), [](std::uint32_t) {});
  EXPECT_TRUE(p.split.split());
  // A list of one class has nothing to merge: it stays one set however long.
  pair_of_lists one;
  for (std::uint32_t i = 0; i < 3 * split_list<fake_users>::split_at; ++i)
    one.add(static_cast<double>(i / 10), 1);
  EXPECT_FALSE(one.split.split());
  EXPECT_EQ(one.scan(), one.ref_scan());
}

// Up to short_capacity users the list is a small sorted array; one more moves them into the
// tree, which holds the list until it is empty. Each form must order ties by token, take
// cut-ins, removals from the middle and pops as the one sorted set does, also after its head
// has moved on (the array's entries then move down to make room at its tail).
TEST(SplitList, ShortArrayUntilFullThenTreeUntilEmpty) {
  constexpr std::uint32_t cap = split_list<fake_users>::short_capacity;
  waitroom::sim::rng r(5);
  pair_of_lists p;
  std::vector<std::uint32_t> gone;  // popped or removed: their rank is where they would be
  auto check = [&](const char* when) {
    ASSERT_EQ(p.scan(), p.ref_scan()) << when;
    ASSERT_EQ(p.split.size(), p.ref.zcard()) << when;
    for (std::uint32_t u : gone)
      ASSERT_EQ(p.split.rank(u, p.a.score_of(u)), p.ref.tree().rank(p.b.score_of(u), u)) << when;
    if (p.ref.zcard() == 0) return;
    ASSERT_EQ(p.split.head_user(), p.ref.tree().at(0).id) << when;
    for (std::uint32_t u : p.waiting)
      ASSERT_EQ(p.split.rank(u, p.a.score_of(u)), *p.ref.zrank(u)) << when;
  };
  auto pop = [&](std::uint64_t n) {
    std::vector<std::uint32_t> got, want;
    const std::uint64_t n_got = p.split.pop_min(n, [&](std::uint32_t u) {
      EXPECT_EQ(p.a.list_of(u), derived_store<fake_users>::no_list);  // gone before the call
      got.push_back(u);
    });
    const std::uint64_t n_want =
        p.ref.pop_min(n, [&](std::uint32_t u, double) { want.push_back(u); });
    ASSERT_EQ(n_got, n_want);
    ASSERT_EQ(got, want);
    gone.insert(gone.end(), got.begin(), got.end());
    std::erase_if(p.waiting, [&](std::uint32_t u) {
      return p.b.list_of(u) == derived_store<fake_users>::no_list;
    });
  };
  for (int round = 0; round < 3; ++round) {
    // Scores from few values: many ties, ordered by token; classes in any order.
    for (std::uint32_t i = 0; i < cap - 1; ++i)
      p.add(static_cast<double>(r.below(8)), static_cast<std::uint32_t>(r.below(3)));
    ASSERT_TRUE(p.split.short_list());
    check("short, one below full");
    // The head moves on, then arrivals need the room it left: the entries move down.
    pop(5);
    gone.push_back(p.waiting[3]);
    p.remove_at(3);
    for (int i = 0; i < 7; ++i) p.add(static_cast<double>(r.below(8)), 1);
    ASSERT_TRUE(p.split.short_list());
    ASSERT_EQ(p.split.size(), cap);
    check("short and full, after pops");
    p.add(3.0, 0);  // one more: into the tree
    ASSERT_FALSE(p.split.short_list());
    check("in the tree");
    for (int i = 0; i < 40; ++i) p.add(static_cast<double>(r.below(8)), 2);
    pop(cap);
    ASSERT_FALSE(p.split.short_list());  // not empty yet: still the tree
    check("tree, after a pop");
    if (round == 1) {  // emptied by removals rather than a pop
      while (!p.waiting.empty()) {
        gone.push_back(p.waiting[0]);
        p.remove_at(0);
      }
    } else {
      pop(p.split.size());
    }
    ASSERT_EQ(p.split.size(), 0u);
    ASSERT_TRUE(p.split.short_list());
    check("empty");
  }
  // A NaN score is refused as ZADD refuses it, and the list is unchanged.
  p.add(1.0, 0);
  p.a.list.push_back(derived_store<fake_users>::no_list);
  p.a.score.push_back(std::nan(""));
  p.a.score_class_of.push_back(0);
  EXPECT_THROW(p.split.add(std::nan(""), static_cast<std::uint32_t>(p.a.list.size() - 1)),
               zset_error);
  EXPECT_EQ(p.split.size(), 1u);
}

// Removing a user not in the list changes nothing.
TEST(SplitList, RemovesOnlyAUserOfTheList) {
  pair_of_lists p;
  p.add(5.0, 0);
  p.add(4.0, 1);
  p.split.pop_min(1, [](std::uint32_t) {});
  p.split.remove(1);  // popped already
  EXPECT_EQ(p.split.size(), 1u);
  p.split.remove(0);
  EXPECT_EQ(p.split.size(), 0u);
}

}  // namespace
