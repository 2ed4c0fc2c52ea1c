#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/histogram.hpp"
#include "sim/moments.hpp"
#include "sim/random.hpp"
#include "sim/sample_quantile.hpp"

using namespace waitroom::sim;

TEST(Histogram, BucketsTileTheLineWithBoundedWidth) {
  std::uint64_t expect_lower = 0;
  for (std::size_t i = 0; i < log_histogram::index_of(~0ULL >> 1); ++i) {
    ASSERT_EQ(log_histogram::lower_bound(i), expect_lower) << i;
    std::uint64_t width = log_histogram::upper_bound(i) - log_histogram::lower_bound(i);
    if (expect_lower < 256) {
      ASSERT_EQ(width, 1u);  // small values are counted exactly
    } else {
      ASSERT_LE(static_cast<double>(width) / static_cast<double>(expect_lower),
                log_histogram::max_relative_width + 1e-12);
    }
    expect_lower = log_histogram::upper_bound(i);
  }
  for (std::uint64_t v : {0ULL, 1ULL, 255ULL, 256ULL, 257ULL, 1000000007ULL, 1ULL << 62}) {
    auto i = log_histogram::index_of(v);
    EXPECT_LE(log_histogram::lower_bound(i), v);
    EXPECT_LT(v, log_histogram::upper_bound(i));
  }
}

TEST(Histogram, QuantilesWithinHalfABucketOfExact) {
  log_histogram h;
  rng r(5);
  std::vector<std::int64_t> xs;
  for (int i = 0; i < 100000; ++i) {
    auto x = static_cast<std::int64_t>(-std::log(r.uniform_open0()) * 3e9);
    xs.push_back(x);
    h.add(x);
  }
  std::sort(xs.begin(), xs.end());
  for (double q : {0.5, 0.9, 0.95, 0.99, 0.999}) {
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(xs.size()))) - 1;
    double exact = static_cast<double>(xs[rank]);
    EXPECT_NEAR(h.quantile(q), exact, exact * log_histogram::max_relative_width / 2 + 1) << q;
  }
  EXPECT_EQ(h.min(), static_cast<std::uint64_t>(xs.front()));
  EXPECT_EQ(h.max(), static_cast<std::uint64_t>(xs.back()));
}

TEST(Histogram, MergeEqualsSingleHistogram) {
  log_histogram a, b, all;
  running_moments ma, mb, mall;
  rng r(11);
  for (int i = 0; i < 50000; ++i) {
    auto x = static_cast<std::int64_t>(r.below(1000000000));
    (i % 3 ? a : b).add(x);
    (i % 3 ? ma : mb).add(static_cast<double>(x));
    all.add(x);
    mall.add(static_cast<double>(x));
  }
  a.merge(b);
  ma.merge(mb);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (std::size_t i = 0; i < log_histogram::bucket_count; ++i)
    ASSERT_EQ(a.bucket(i), all.bucket(i));
  EXPECT_NEAR(ma.mean(), mall.mean(), 1e-12 * mall.mean());
  EXPECT_NEAR(ma.variance(), mall.variance(), 1e-9 * mall.variance());
  EXPECT_EQ(ma.min(), mall.min());
  EXPECT_EQ(ma.count(), mall.count());
}

TEST(Histogram, NearestRankQuantilesOfSmallExactSamples) {
  // Values below 256 have a bucket each, so these quantiles are exact: nearest rank
  // (the ceil(q n)-th smallest), never an interpolation and never the next bucket.
  log_histogram h;
  for (std::int64_t v : {4, 2, 1, 3}) h.add(v);
  EXPECT_EQ(h.quantile(0.25), 1.0);
  EXPECT_EQ(h.quantile(0.5), 2.0);
  EXPECT_EQ(h.quantile(0.6), 3.0);  // rank ceil(2.4) = 3
  EXPECT_EQ(h.quantile(0.75), 3.0);
  EXPECT_EQ(h.quantile(1.0), 4.0);
  EXPECT_EQ(h.quantile(0.0), 1.0);  // rank 0 clamps to the smallest
  // The same samples split over two histograms and merged.
  log_histogram a, b;
  a.add(1);
  a.add(3);
  b.add(2);
  b.add(4);
  a.merge(b);
  EXPECT_EQ(a.count(), 4u);
  EXPECT_EQ(a.quantile(0.25), 1.0);
  EXPECT_EQ(a.quantile(0.5), 2.0);
  EXPECT_EQ(a.quantile(1.0), 4.0);
  EXPECT_EQ(a.min(), 1u);
  EXPECT_EQ(a.max(), 4u);
  // Merged into an empty histogram: the same figures, min included.
  log_histogram e;
  e.merge(a);
  EXPECT_EQ(e.min(), 1u);
  EXPECT_EQ(e.max(), 4u);
  EXPECT_EQ(e.quantile(0.25), 1.0);
}

TEST(Histogram, QuantileAtWideBucketEdgesIsTheBucketMidpoint) {
  // From 256 buckets are 2 wide: [256, 258) and [258, 260). The median of 256, 257, 258, 259
  // is in the first, reported at its midpoint 256.5; the 75th percentile at 258.5.
  log_histogram h;
  for (std::int64_t v : {256, 257, 258, 259}) h.add(v);
  EXPECT_EQ(log_histogram::upper_bound(log_histogram::index_of(256)), 258u);
  EXPECT_EQ(h.quantile(0.5), 256.5);
  EXPECT_EQ(h.quantile(0.75), 258.5);
  // A single value is reported as itself: the midpoint is clamped to [min, max].
  log_histogram one;
  one.add(259);
  EXPECT_EQ(one.quantile(0.5), 259.0);
}

TEST(Moments, MatchTheTwoPassFormulasAndMergeExactly) {
  running_moments a, b, all;
  const std::vector<double> xs = {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0};  // mean 5, ss 32
  for (std::size_t i = 0; i < xs.size(); ++i) {
    (i < 3 ? a : b).add(xs[i]);
    all.add(xs[i]);
  }
  EXPECT_DOUBLE_EQ(all.mean(), 5.0);
  EXPECT_DOUBLE_EQ(all.variance(), 32.0 / 7.0);
  EXPECT_DOUBLE_EQ(all.stddev(), std::sqrt(32.0 / 7.0));
  EXPECT_EQ(all.min(), 2.0);
  EXPECT_EQ(all.max(), 9.0);
  a.merge(b);
  EXPECT_EQ(a.count(), 8u);
  EXPECT_DOUBLE_EQ(a.mean(), 5.0);
  EXPECT_NEAR(a.variance(), 32.0 / 7.0, 1e-12);
  EXPECT_EQ(a.min(), 2.0);
  EXPECT_EQ(a.max(), 9.0);
  running_moments empty;
  empty.merge(all);
  EXPECT_DOUBLE_EQ(empty.variance(), 32.0 / 7.0);
}

TEST(Histogram, CompactKeepsEveryFigureInTheNonEmptyBucketsOnly) {
  log_histogram h, all;
  rng r(11);
  for (int i = 0; i < 5000; ++i)
    h.add(static_cast<std::int64_t>(-std::log(r.uniform_open0()) * 2e9));
  all.merge(h);
  const auto rows = h.nonzero_buckets();
  log_histogram c = h;
  c.compact();
  ASSERT_TRUE(c.compacted());
  EXPECT_EQ(c.memory_bytes(), rows.size() * 16);
  EXPECT_GT(h.memory_bytes(), 60000u);
  EXPECT_EQ(c.count(), h.count());
  EXPECT_EQ(c.min(), h.min());
  EXPECT_EQ(c.max(), h.max());
  for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0})
    EXPECT_EQ(c.quantile(q), h.quantile(q)) << q;
  for (std::size_t i = 0; i < log_histogram::bucket_count; ++i)
    ASSERT_EQ(c.bucket(i), h.bucket(i)) << i;
  const auto crows = c.nonzero_buckets();
  ASSERT_EQ(crows.size(), rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(crows[k].count, rows[k].count);
  // Merging a compacted histogram, or into one, is the dense merge.
  log_histogram twice = h;
  twice.merge(c);
  c.merge(h);
  EXPECT_FALSE(c.compacted());
  for (std::size_t i = 0; i < log_histogram::bucket_count; ++i)
    ASSERT_EQ(c.bucket(i), twice.bucket(i));
  EXPECT_EQ(c.quantile(0.5), twice.quantile(0.5));
  log_histogram empty;
  empty.compact();
  EXPECT_EQ(empty.quantile(0.5), 0.0);
  EXPECT_EQ(empty.memory_bytes(), 0u);
}

TEST(SampleQuantile, IsTheHistogramsNearestRank) {
  // A sample's quantile and a histogram's of the same values agree exactly where every
  // value has its own bucket (below 256), at every q from 0 to 1 by 0.01 and at the
  // edges of each rank (q n whole).
  rng r(17);
  for (std::size_t n : {1u, 2u, 7u, 100u, 1001u}) {
    std::vector<double> sample;
    log_histogram h;
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::int64_t>(r.uniform01() * 255);
      sample.push_back(static_cast<double>(v));
      h.add(v);
    }
    std::vector<double> sorted = sample;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> qs;
    for (int k = 0; k <= 100; ++k) qs.push_back(k / 100.0);
    for (std::size_t rank = 1; rank <= n; ++rank)
      qs.push_back(static_cast<double>(rank) / static_cast<double>(n));
    for (double q : qs) {
      std::vector<double> copy = sample;
      EXPECT_EQ(sample_quantile(copy, q), h.quantile(q)) << "n " << n << " q " << q;
      EXPECT_EQ(sorted_quantile(sorted, q), h.quantile(q)) << "n " << n << " q " << q;
    }
  }
  // By hand: 1..10, the 5th smallest at the median, the 10th at the 95th percentile.
  std::vector<double> ten{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(sample_quantile(ten, 0.5), 5.0);
  EXPECT_EQ(sample_quantile(ten, 0.95), 10.0);
  EXPECT_EQ(sample_quantile(ten, 0.9), 9.0);
  EXPECT_EQ(sample_quantile(ten, 0.0), 1.0);
}
