#include <gtest/gtest.h>

#include <cmath>

#include "models/release/selector.hpp"

using namespace waitroom;
using models::list_selector;
using models::selection_kind;
using models::selection_spec;

namespace {
std::vector<int> counts(list_selector& s, std::vector<std::uint64_t> sizes, int picks,
                        sim::rng& r) {
  std::vector<int> c(sizes.size() + 1, 0);  // last: none
  for (int i = 0; i < picks; ++i) {
    int l = s.pick(sizes, r);
    ++c[l == list_selector::none ? sizes.size() : static_cast<std::size_t>(l)];
  }
  return c;
}
}  // namespace

TEST(Selector, RatioGivesExactSharesInEveryRound) {
  selection_spec spec;
  spec.kind = selection_kind::ratio;
  spec.weights = {7, 3};
  list_selector s(spec, 2);
  sim::rng r(1);
  for (int round = 0; round < 5; ++round)  // 7 and 3 of every 10 picks
    EXPECT_EQ(counts(s, {100, 100}, 10, r), (std::vector<int>{7, 3, 0}));
}

TEST(Selector, WorkConservingPassesAnEmptyListsShare) {
  selection_spec spec;
  spec.kind = selection_kind::ratio;
  spec.weights = {7, 3};
  list_selector wc(spec, 2);
  sim::rng r(1);
  EXPECT_EQ(counts(wc, {0, 100}, 10, r), (std::vector<int>{0, 10, 0}));
  spec.work_conserving = false;
  list_selector lossy(spec, 2);
  EXPECT_EQ(counts(lossy, {0, 100}, 10, r), (std::vector<int>{0, 3, 7}));  // 7 units lost
  EXPECT_EQ(counts(lossy, {0, 0}, 4, r)[2], 4);
}

TEST(Selector, ScheduleChangesTheRatio) {
  selection_spec spec;
  spec.kind = selection_kind::ratio;
  spec.weights = {20, 10};
  list_selector s(spec, 2);
  sim::rng r(1);
  EXPECT_EQ(counts(s, {1000, 1000}, 30, r), (std::vector<int>{20, 10, 0}));
  s.set_weights({15, 15});
  EXPECT_EQ(counts(s, {1000, 1000}, 30, r), (std::vector<int>{15, 15, 0}));
}

TEST(Selector, StrictTakesTheFirstNonEmptyList) {
  selection_spec spec;
  list_selector s(spec, 3);
  sim::rng r(1);
  EXPECT_EQ(counts(s, {0, 5, 9}, 4, r), (std::vector<int>{0, 4, 0, 0}));
  EXPECT_EQ(counts(s, {0, 0, 0}, 2, r), (std::vector<int>{0, 0, 0, 2}));
}

TEST(Selector, ProbabilisticStartFollowsTheProbabilities) {
  selection_spec spec;
  spec.kind = selection_kind::probabilistic;
  spec.start_probabilities = {0.9, 0.1, 0.0};
  list_selector s(spec, 3);
  sim::rng r(2);
  const int n = 100000;
  auto c = counts(s, {10, 10, 10}, n, r);
  EXPECT_NEAR(c[1], 0.1 * n, 5 * std::sqrt(n * 0.1 * 0.9));  // Binomial, 5 sd
  EXPECT_EQ(c[2], 0);
  // Starting at an empty list, the scan moves down, then wraps to the top.
  auto d = counts(s, {10, 0, 10}, n, r);
  EXPECT_NEAR(d[2], 0.1 * n, 5 * std::sqrt(n * 0.1 * 0.9));
}

TEST(Selector, RatioWithThreeListsGivesExactSharesInEveryBlock) {
  // Two lists hide a wrong update of the credits (subtracting the two weights in play is the
  // total); a third list with weights 3:2:1 shows it: every block of 6 picks is exactly 3, 2, 1.
  selection_spec spec;
  spec.kind = selection_kind::ratio;
  spec.weights = {3, 2, 1};
  list_selector s(spec, 3);
  sim::rng r(1);
  for (int block = 0; block < 20; ++block)
    ASSERT_EQ(counts(s, {100, 100, 100}, 6, r), (std::vector<int>{3, 2, 1, 0})) << block;
  // Four lists, 4:3:2:1, every block of 10.
  spec.weights = {4, 3, 2, 1};
  list_selector four(spec, 4);
  for (int block = 0; block < 20; ++block)
    ASSERT_EQ(counts(four, {100, 100, 100, 100}, 10, r), (std::vector<int>{4, 3, 2, 1, 0}))
        << block;
}

TEST(Selector, RatioInterleavesLikeNginxAndRestartsTheRoundOnANewRatio) {
  // nginx's smooth weighted round-robin with weights a = 5, b = 1, c = 1 picks
  // a a b a c a a: the heavy list's picks spread out, ties go to the first list.
  selection_spec spec;
  spec.kind = selection_kind::ratio;
  spec.weights = {5, 1, 1};
  list_selector s(spec, 3);
  sim::rng r(1);
  auto sequence = [&](int n) {
    std::vector<int> out;
    for (int i = 0; i < n; ++i) out.push_back(s.pick({9, 9, 9}, r));
    return out;
  };
  EXPECT_EQ(sequence(7), (std::vector<int>{0, 0, 1, 0, 2, 0, 0}));
  // Changed three picks into a round, the new ratio starts a round of its own (carried-over
  // credit would give 2 2 0 2 2 2 1).
  EXPECT_EQ(sequence(3), (std::vector<int>{0, 0, 1}));
  s.set_weights({1, 1, 5});
  EXPECT_EQ(sequence(7), (std::vector<int>{2, 2, 0, 2, 1, 2, 2}));
}
