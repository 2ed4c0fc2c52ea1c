// The poll progression counter (O(1) per progression on a grid) against a poll-by-poll count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/polling/polling.hpp"
#include "sim/random.hpp"

using waitroom::models::progression_counter;

namespace {

constexpr std::int64_t second = 1'000'000'000;

// Poll k of a progression comes at first + k * interval: counted in its second.
void brute(std::int64_t interval, std::int64_t first, std::int64_t count,
           std::vector<std::uint64_t>& per_second) {
  for (std::int64_t k = 0; k < count; ++k) {
    const auto s = static_cast<std::size_t>((first + k * interval) / second);
    if (s >= per_second.size()) per_second.resize(s + 1, 0);
    ++per_second[s];
  }
}

// The counter's totals, padded with zeros to the brute force's length (and vice versa).
void expect_same(std::vector<std::uint64_t> got, std::vector<std::uint64_t> want) {
  const std::size_t n = std::max(got.size(), want.size());
  got.resize(n, 0);
  want.resize(n, 0);
  EXPECT_EQ(got, want);
}

}  // namespace

TEST(ProgressionCounter, HandCountedProgression) {
  // Every 1.5 s from 0.2 s, four polls: 0.2, 1.7, 3.2, 4.7 -> seconds 0, 1, 3, 4.
  progression_counter c(1'500'000'000);
  std::vector<std::uint64_t> per_second;
  c.add(200'000'000, 4, per_second);
  c.flush(per_second);
  expect_same(per_second, {1, 1, 0, 1, 1});
}

TEST(ProgressionCounter, SeveralProgressionsOverlapAndAdd) {
  // Every 0.4 s (grid 200 ms): from 0 five polls (0, .4, .8, 1.2, 1.6) and from 0.9 s three
  // (0.9, 1.3, 1.7): second 0 holds 3 + 1, second 1 holds 2 + 2.
  progression_counter c(400'000'000);
  std::vector<std::uint64_t> per_second;
  c.add(0, 5, per_second);
  c.add(900'000'000, 3, per_second);
  c.add(5 * second, 0, per_second);  // no polls: nothing counted, nothing grown
  c.flush(per_second);
  expect_same(per_second, {4, 4});
}

TEST(ProgressionCounter, FlushEmptiesTheGridAndCountingGoesOn) {
  progression_counter c(2 * second);
  std::vector<std::uint64_t> per_second;
  c.add(second, 3, per_second);  // 1, 3, 5
  c.flush(per_second);
  expect_same(per_second, {0, 1, 0, 1, 0, 1});
  c.flush(per_second);  // nothing new
  expect_same(per_second, {0, 1, 0, 1, 0, 1});
  c.add(0, 2, per_second);  // 0, 2
  c.flush(per_second);
  expect_same(per_second, {1, 1, 1, 1, 0, 1});
}

TEST(ProgressionCounter, FirstOffTheGridFallsInTheRightSecond) {
  // Grid 500 ms; the first poll at 0.999999999 s is not on it: polls at 0.999999999,
  // 3.499999999, 5.999999999 (seconds 0, 3, 5).
  progression_counter c(2'500'000'000);
  std::vector<std::uint64_t> per_second;
  c.add(second - 1, 3, per_second);
  c.flush(per_second);
  expect_same(per_second, {1, 0, 0, 1, 0, 1});
}

TEST(ProgressionCounter, MatchesPollByPollCountOnAndOffTheGrid) {
  // Intervals on a coarse grid (gcd with 1 s of 1 s, 500, 250, 200 and 100 ms) and off it
  // (gcd 1 ms, 1 us, 1 ns: counted one by one); first polls on and off the grid.
  const std::vector<std::int64_t> intervals{3 * second,    1 * second,  2'500'000'000, 250'000'000,
                                            400'000'000,   300'000'000, 1'700'000'000, 123'000'000,
                                            3'333'333'000, 999'999'999};
  waitroom::sim::rng r(42);
  for (std::int64_t interval : intervals) {
    progression_counter c(interval);
    std::vector<std::uint64_t> got, want;
    // The one-by-one path writes into the caller's series, which must cover every poll.
    got.assign(400, 0);
    for (int p = 0; p < 50; ++p) {
      const auto first = static_cast<std::int64_t>(r.below(100 * second));
      const auto count = static_cast<std::int64_t>(r.below(40));
      c.add(first, count, got);
      brute(interval, first, count, want);
    }
    c.flush(got);
    SCOPED_TRACE(interval);
    expect_same(got, want);
  }
}
