#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/histogram.hpp"
#include "sim/moments.hpp"
#include "sim/random.hpp"

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
