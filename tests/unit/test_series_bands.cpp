// Replications' queue series: sums per sample index, exact and order-free.
#include <gtest/gtest.h>

#include "models/run/replicate.hpp"
#include "models/run/series_bands.hpp"
#include "sim/confidence.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {

// A run's samples every 10 s: (length by class), released in the interval.
models::room_result run_of(std::vector<std::vector<std::uint64_t>> by_class,
                           std::vector<std::uint64_t> released, double end_t = -1) {
  models::room_result r;
  for (std::size_t k = 0; k < by_class.size(); ++k) {
    std::uint64_t n = 0;
    for (auto x : by_class[k]) n += x;
    const double t = k + 1 == by_class.size() && end_t >= 0 ? end_t : 10.0 * static_cast<double>(k);
    r.samples.push_back({t, n, by_class[k], released[k], {}});
  }
  return r;
}

}  // namespace

TEST(SeriesBands, MeansAndIntervalsAreTheReplicationsOwn) {
  models::series_bands b(2);
  b.add(run_of({{1, 2}, {3, 4}, {0, 0}}, {0, 5, 7}));
  b.add(run_of({{2, 2}, {5, 0}, {1, 1}}, {0, 3, 9}));
  b.add(run_of({{0, 6}, {4, 1}, {0, 2}}, {0, 4, 8}));
  ASSERT_EQ(b.samples(), 3u);
  EXPECT_EQ(b.t_s(), (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(b.replications(), 3u);
  // Index 1: everyone waiting 7, 5, 5; class 0: 3, 5, 4; released 5, 3, 4.
  for (auto [col, xs] : std::vector<std::pair<std::size_t, std::vector<double>>>{
           {0, {7, 5, 5}}, {1, {3, 5, 4}}, {2, {4, 0, 1}}, {3, {5, 3, 4}}}) {
    const auto want = sim::mean_interval(xs, 0.95);
    const auto got = b.at(1, col, 0.95);
    EXPECT_DOUBLE_EQ(got.mean, want.mean) << col;
    EXPECT_NEAR(got.half_width, want.half_width, 1e-12) << col;
  }
}

TEST(SeriesBands, AnEndedReplicationCountsAsEmptyAndTheOffGridEndIsLeftOut) {
  models::series_bands b(1);
  b.add(run_of({{4}, {6}, {8}, {2}}, {0, 1, 1, 1}));
  // Ended at 13 s: its last sample (off the 10 s grid) is left out; after it, zero.
  b.add(run_of({{2}, {2}, {9}}, {0, 3, 5}, 13.0));
  ASSERT_EQ(b.samples(), 4u);
  EXPECT_DOUBLE_EQ(b.at(1, 0, 0.95).mean, 4.0);  // (6 + 2) / 2
  EXPECT_DOUBLE_EQ(b.at(2, 0, 0.95).mean, 4.0);  // (8 + 0) / 2: the 9 at 13 s is not at 20 s
  EXPECT_DOUBLE_EQ(b.at(3, 0, 0.95).mean, 1.0);
  EXPECT_DOUBLE_EQ(b.t_s()[2], 20.0);
}

TEST(SeriesBands, SquaresCarryPastSixtyFourBitsAndMergeInAnyOrder) {
  const std::uint64_t big = std::uint64_t{1} << 40;  // squared: 2^80
  auto a = run_of({{big}, {big}}, {0, 0});
  auto c = run_of({{big + 2}, {big}}, {0, 0});
  auto d = run_of({{big - 2}, {3}}, {0, 0});
  models::series_bands one(1), left(1), right(1);
  for (const auto* r : {&a, &c, &d}) one.add(*r);
  left.add(d);
  right.add(c);
  right.add(a);
  left.merge(right);
  EXPECT_EQ(one.sums(), left.sums());
  EXPECT_EQ(one.squares_high(), left.squares_high());
  EXPECT_EQ(one.squares_low(), left.squares_low());
  // sum of squares at index 0: 3 * 2^80 + 8 (the +-4 * 2^40 cross terms cancel).
  EXPECT_EQ(one.squares_high()[0], 3u * (std::uint64_t{1} << 16));
  EXPECT_EQ(one.squares_low()[0], 8u);
  // Variance of {2^40, 2^40 + 2, 2^40 - 2} is 4: exact despite the 2^80 squares.
  EXPECT_DOUBLE_EQ(one.at(0, 0, 0.95).mean, static_cast<double>(big));
  EXPECT_NEAR(one.at(0, 0, 0.95).half_width, sim::student_t_quantile(0.975, 2) * 2 / std::sqrt(3.0),
              1e-9);
  models::series_bands back(1);
  ASSERT_TRUE(back.restore(one.replications(), one.t_s(), one.sums(), one.squares_high(),
                           one.squares_low()));
  EXPECT_EQ(back.at(1, 0, 0.95).mean, one.at(1, 0, 0.95).mean);
  EXPECT_FALSE(back.restore(1, {0.0}, {1, 2}, {0}, {0}));  // wrong shape
}

TEST(SeriesBands, ReplicateGivesTheSameBandsWhateverTheThreadCount) {
  auto s = testing_support::scenario_from(R"({"name": "c", "seed": 3,
    "classes": [{"name": "vip", "share": 0.2}, {"name": "normal", "share": 0.8}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 300, "rate_per_s": 25}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 6},
    "run": {"sample_interval_s": 5}})");
  models::series_bands one(2), three(2);
  models::replicate(s, 3, 6, 1, {}, &one);
  models::replicate(s, 3, 6, 3, {}, &three);
  EXPECT_EQ(one.sums(), three.sums());
  EXPECT_EQ(one.squares_low(), three.squares_low());
  EXPECT_EQ(one.t_s(), three.t_s());
  EXPECT_GT(one.samples(), 50u);
  EXPECT_GT(one.at(30, 0, 0.95).mean, 0.0);
  EXPECT_EQ(one.replications(), 6u);
}
