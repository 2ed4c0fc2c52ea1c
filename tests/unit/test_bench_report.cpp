// The bench's figures and verdicts (tests/bench/report.hpp): rounds too short to time and
// runs where nobody waited give no figure, and no figure gives no verdict.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/bench/report.hpp"

using namespace waitroom::bench;

TEST(BenchReport, MedianOfOddAndEvenCountsAndNoneOfNothing) {
  EXPECT_EQ(median({3.0, 1.0, 2.0}), std::optional<double>(2.0));
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), std::optional<double>(2.5));
  EXPECT_EQ(median({}), std::nullopt);
}

TEST(BenchReport, RatiosLeaveOutRoundsTooShortToTime) {
  // Per-round ratios 2, 4 and 3 (median 3); the round where the baseline read 0 s is not a
  // ratio of 0 or infinity, and the extra round of `a` has no partner.
  EXPECT_EQ(median_ratio({2, 8, 5, 6, 7}, {1, 2, 0, 2}), std::optional<double>(3.0));
  EXPECT_EQ(median_ratio({0, 5}, {1, 0}), std::nullopt);
  EXPECT_EQ(median_ratio({}, {1, 2}), std::nullopt);
}

TEST(BenchReport, UnequalCpusBoundWhatThreadsCanDo) {
  EXPECT_EQ(parallel_ideal_seconds({2.0, 2.0}, 2, 8), std::optional<double>(8.0));
  // One CPU 1.25x slower does 0.8 jobs a second to the other's 1: 9 jobs in 5 s.
  EXPECT_EQ(parallel_ideal_seconds({1.25, 1.0}, 2, 9), std::optional<double>(5.0));
  // The two fastest of three; a CPU too short to time is no CPU.
  EXPECT_EQ(parallel_ideal_seconds({4.0, 1.0, 2.0}, 2, 3), std::optional<double>(2.0));
  EXPECT_EQ(parallel_ideal_seconds({4.0}, 1, 3), std::optional<double>(12.0));
  EXPECT_EQ(parallel_ideal_seconds({0.0, 1.0}, 2, 8), std::nullopt);
  EXPECT_EQ(parallel_ideal_seconds({1.0}, 2, 8), std::nullopt);
  EXPECT_EQ(parallel_ideal_seconds({1.0, 1.0}, 0, 8), std::nullopt);
}

TEST(BenchReport, PinnedCpusAreCappedAndSpreadFromFirstToLast) {
  EXPECT_EQ(spread_cpus({0, 1}, 4), (std::vector<int>{0, 1}));
  EXPECT_EQ(spread_cpus({0, 1, 2, 3}, 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(spread_cpus({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 4), (std::vector<int>{0, 3, 6, 9}));
  EXPECT_EQ(spread_cpus({2, 5, 7, 11, 13}, 2), (std::vector<int>{2, 13}));
  EXPECT_EQ(spread_cpus({2, 5, 7}, 1), (std::vector<int>{2}));
  EXPECT_EQ(spread_cpus({2, 5, 7}, 0), (std::vector<int>{}));
}

TEST(BenchReport, BytesPerUserNeedBothFigures) {
  EXPECT_EQ(per_user(250.0, 10), std::optional<double>(25.0));
  EXPECT_EQ(per_user(250.0, 0), std::nullopt);
  EXPECT_EQ(per_user(0.0, 10), std::nullopt);
}

TEST(BenchReport, TargetLinesSayMetNotMetOrNotMeasured) {
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  // At least: the target itself is met.
  EXPECT_TRUE(ends_with(target_line("(b)", 3.5, 3.5, true), "target >= 3.5    met\n"));
  EXPECT_TRUE(ends_with(target_line("(b)", 3.49, 3.5, true), "NOT MET\n"));
  // At most (bytes per waiting user).
  EXPECT_TRUE(ends_with(target_line("bytes", 25.1, 40, false), "target <= 40     met\n"));
  EXPECT_TRUE(ends_with(target_line("bytes", 40.5, 40, false), "NOT MET\n"));
  EXPECT_TRUE(ends_with(target_line("bytes", 40, 40, false), "target <= 40     met\n"));
  const std::string none = target_line("(a)", std::nullopt, 0.8, true);
  EXPECT_NE(none.find("NOT MEASURED"), std::string::npos);
  EXPECT_EQ(none.find(" met"), std::string::npos);
  EXPECT_TRUE(ends_with(target_line("r", std::nullopt, 1.9, true, "no round timed"),
                        "NOT MEASURED (no round timed)\n"));
  EXPECT_NE(target_line("(a)", 0.3214, 0.8, true).find("    0.32  "), std::string::npos);
  EXPECT_EQ(ratio_text(std::nullopt), "-");
  EXPECT_EQ(ratio_text(2.557), "2.56");
}
