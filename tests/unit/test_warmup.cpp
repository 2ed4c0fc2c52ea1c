// Warm-up deletion: which released users' waits count, MSER-5's batch means and its
// truncation point, by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/room/warmup.hpp"

using namespace waitroom::models;

namespace {
constexpr std::int64_t s_ns = 1'000'000'000;
}

TEST(Warmup, NoneRecordsEveryone) {
  run_spec r;
  warmup w(r);
  EXPECT_TRUE(w.record(0, 5 * s_ns));
  EXPECT_TRUE(w.record(0, 0));
  EXPECT_EQ(w.dropped(), 0u);
  EXPECT_TRUE(w.batch_means().empty());
}

TEST(Warmup, TimeDropsUsersWhoEnteredBeforeItByEntryNotRelease) {
  run_spec r;
  r.warmup = warmup_kind::time;
  r.warmup_s = 10;
  warmup w(r);
  EXPECT_FALSE(w.record(10 * s_ns - 1, 100 * s_ns));  // released long after, entered before
  EXPECT_TRUE(w.record(10 * s_ns, 0));                // entered exactly at warmup_s
  EXPECT_FALSE(w.record(0, 1));
  EXPECT_TRUE(w.record(11 * s_ns, 0));
  EXPECT_EQ(w.dropped(), 2u);
}

TEST(Warmup, CustomersDropsTheFirstReleases) {
  run_spec r;
  r.warmup = warmup_kind::customers;
  r.warmup_customers = 3;
  warmup w(r);
  EXPECT_FALSE(w.record(50 * s_ns, 1));
  EXPECT_FALSE(w.record(50 * s_ns, 1));
  EXPECT_FALSE(w.record(50 * s_ns, 1));
  EXPECT_TRUE(w.record(0, 1));  // the fourth, whenever it entered
  EXPECT_TRUE(w.record(0, 1));
  EXPECT_EQ(w.dropped(), 3u);
}

TEST(Warmup, Mser5KeepsEverythingAndAveragesBatchesOfFive) {
  run_spec r;
  r.warmup = warmup_kind::mser5;
  warmup w(r);
  for (int k = 1; k <= 14; ++k) EXPECT_TRUE(w.record(0, k * s_ns));  // waits 1..14 s
  // Batches (1..5) and (6..10); 11..14 is not a whole batch.
  EXPECT_EQ(w.batch_means(), (std::vector<double>{3.0, 8.0}));
  EXPECT_EQ(w.dropped(), 0u);
  EXPECT_TRUE(w.record(0, 15 * s_ns));
  EXPECT_EQ(w.batch_means(), (std::vector<double>{3.0, 8.0, 13.0}));
}

TEST(MserTruncation, FewerThanFourBatchesDropNothing) {
  EXPECT_EQ(mser_truncation({}), 0u);
  EXPECT_EQ(mser_truncation({100, 0, 0}), 0u);
}

TEST(MserTruncation, MinimisesTheStandardErrorOfTheRestByHand) {
  // d = 0..3 of 6: SS/(n-d)^2 = 0.481, 0.432, 0.0625, 0.074: drop 2 batches.
  EXPECT_EQ(mser_truncation({5, 5, 1, 2, 1, 2}), 2u);
  // One outlier first: dropping it leaves zero variance.
  EXPECT_EQ(mser_truncation({10, 0, 0, 0, 0, 0}), 1u);
  // All equal: every d scores 0, the first (no truncation) is kept.
  EXPECT_EQ(mser_truncation({1, 1, 1, 1}), 0u);
}

TEST(MserTruncation, SearchesOnlyTheFirstHalf) {
  // d = 0..3 score 0.245, 0.32, 0.42, 0.52; d = 5 would leave one batch (score 0) but lies
  // beyond n / 2.
  EXPECT_EQ(mser_truncation({3, 3, 3, 3, 0, 1}), 0u);
}
