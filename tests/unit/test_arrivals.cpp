#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "sim/arrivals.hpp"
#include "sim/input_error.hpp"

using namespace waitroom::sim;

TEST(Arrivals, PiecewiseRatesGiveExpectedCounts) {
  // A flash crowd: 2000/s for 10 s, then 50/s for 100 s. Counts are Poisson: 5 sd bounds.
  auto p = arrival_process::piecewise({{10.0, 2000.0}, {100.0, 50.0}});
  rng r(1);
  arrival a{};
  std::int64_t first = 0, second = 0;
  sim_time last = sim_time::from_ns(0);
  while (p.next(r, a)) {
    ASSERT_GE(a.time, last);
    last = a.time;
    (a.time < sim_time::from_seconds(10) ? first : second)++;
  }
  EXPECT_NEAR(static_cast<double>(first), 20000, 5 * std::sqrt(20000.0));
  EXPECT_NEAR(static_cast<double>(second), 5000, 5 * std::sqrt(5000.0));
  EXPECT_LT(last, sim_time::from_seconds(110));
  EXPECT_DOUBLE_EQ(p.expected_count(), 25000.0);
}

TEST(Arrivals, ClassMixFollowsShares) {
  class_mix mix({0.2, 0.8});
  rng r(2);
  int vip = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) vip += mix.draw(r) == 0;
  EXPECT_NEAR(vip, 0.2 * n, 5 * std::sqrt(n * 0.2 * 0.8));
}

TEST(Arrivals, TraceReplayAndErrors) {
  std::string path = testing::TempDir() + "/" + std::to_string(::getpid()) + "_trace.csv";
  {
    std::ofstream f(path);
    f << "timestamp_s,class,user_id\n0.5,vip,7\n# comment\n1.25,normal\n1.25,normal,9\n";
  }
  auto recs = read_trace_csv(path, {"vip", "normal"});
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].time, sim_time::from_ms(500));
  EXPECT_EQ(recs[0].user_class, 0u);
  EXPECT_EQ(recs[0].user_id, 7u);
  EXPECT_EQ(recs[2].user_class, 1u);
  auto p = arrival_process::replay(recs);
  rng r(1);
  arrival a{};
  int n = 0;
  while (p.next(r, a)) ++n;
  EXPECT_EQ(n, 3);

  auto expect_error = [&](const std::string& body, const std::string& fragment) {
    {
      std::ofstream f(path);
      f << body;
    }
    try {
      read_trace_csv(path, {"vip", "normal"});
      ADD_FAILURE() << "no error for " << body;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("1.0,vip\n0.5,vip\n", "trace.csv:2: expected timestamps in non-decreasing order");
  expect_error("1.0,gold\n",
               "trace.csv:1: expected a class name (one of: vip, normal), found 'gold'");
  expect_error("1.0,vip\nabc,vip\n", "trace.csv:2: expected a timestamp");
  expect_error("1.0\n", "expected 2 or 3 columns");
  expect_error("-1,vip\n", "between 0 and 100 years");
  EXPECT_THROW(read_trace_csv(path + ".missing", {"vip"}), input_error);
}

TEST(Arrivals, TraceFromMemoryReadsAsTheFileDoes) {
  // parse_trace_csv is read_trace_csv without the file: the same records from the same
  // text (CRLF, comments, a header, no final newline), the same checks, `name` in errors.
  const std::string text =
      "timestamp_s,class,user_id\r\n0.5,vip,7\r\n# comment\n\n 1.25 , normal \n2,vip,9";
  const std::string path =
      testing::TempDir() + "/" + std::to_string(::getpid()) + "_memory_trace.csv";
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  const auto from_file = read_trace_csv(path, {"vip", "normal"});
  const auto from_memory = parse_trace_csv(text, "mem.csv", {"vip", "normal"});
  ASSERT_EQ(from_memory.size(), 3u);
  ASSERT_EQ(from_file.size(), from_memory.size());
  for (std::size_t i = 0; i < from_file.size(); ++i) {
    EXPECT_EQ(from_file[i].time, from_memory[i].time) << i;
    EXPECT_EQ(from_file[i].user_class, from_memory[i].user_class) << i;
    EXPECT_EQ(from_file[i].user_id, from_memory[i].user_id) << i;
  }
  EXPECT_EQ(from_memory[1].time, sim_time::from_ms(1250));
  EXPECT_EQ(from_memory[1].user_class, 1u);
  EXPECT_EQ(from_memory[2].user_id, 9u);

  auto message = [](const std::string& body) -> std::string {
    try {
      parse_trace_csv(body, "mem.csv", {"vip", "normal"});
    } catch (const input_error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message("1.0,vip\n\n# c\n0.5,vip\n"),
            "mem.csv:4: expected timestamps in non-decreasing order, found 0.5 after 1.000000");
  EXPECT_EQ(message("0,vip,3\n1,normal,3\n"),
            "mem.csv:2: expected a user id not given on another line, found user id 3, already "
            "on line 1");
  EXPECT_EQ(message("\xEF\xBB\xBF"
                    "0,vip\n")
                .rfind("mem.csv: expected UTF-8 text without a "
                       "byte-order mark",
                       0),
            0u);
  EXPECT_EQ(message(std::string("0,vip\n\0", 7)).rfind("mem.csv: expected UTF-8 text", 0), 0u);
  EXPECT_EQ(message(""),
            "mem.csv: expected at least one arrival (timestamp_s,class[,user_id]), "
            "found none (an empty trace would run with 0 users)");
}

TEST(Arrivals, RenewalDrawsItsInterarrivalTimes) {
  // Deterministic gaps: exactly k * 0.3 s (accumulated in seconds, rounded once).
  auto d = arrival_process::renewal(distribution::constant(0.3));
  rng r(1);
  arrival a{};
  for (int k = 1; k <= 1000; ++k) {
    ASSERT_TRUE(d.next(r, a));
    ASSERT_EQ(a.time, sim_time::from_seconds(0.3 * k)) << k;
    ASSERT_EQ(a.user_class, -1);
  }
  EXPECT_TRUE(std::isinf(d.expected_count()));
  // Erlang-4 gaps of mean 2: sample mean and variance (mean^2 / k = 1) within 5 standard
  // errors of n = 200,000 gaps.
  auto e = arrival_process::renewal(distribution::erlang(4, 2.0));
  const int n = 200000;
  double prev = 0, sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(e.next(r, a));
    double gap = a.time.seconds() - prev;
    prev = a.time.seconds();
    sum += gap;
    sum2 += gap * gap;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 2.0, 5 * std::sqrt(1.0 / n));
  // Var of the sample variance ~ (mu4 - sigma^4) / n; gamma(4, 1/2): mu4 = 3 s^4 (1 + 2/k)
  // = 4.5, sigma^4 = 1.
  EXPECT_NEAR(var, 1.0, 5 * std::sqrt(3.5 / n));
  // Empirical gaps take only the listed values.
  auto m = arrival_process::renewal(distribution::empirical({0.5, 1.5}));
  prev = 0;
  int small = 0;
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(m.next(r, a));
    double gap = a.time.seconds() - prev;
    prev = a.time.seconds();
    ASSERT_TRUE(std::abs(gap - 0.5) < 1e-8 || std::abs(gap - 1.5) < 1e-8) << gap;
    small += gap < 1.0;
  }
  EXPECT_NEAR(small, 5000, 5 * std::sqrt(10000 * 0.25));
}

namespace {
// The surge's expected arrivals in [0, t], written out here rather than taken from
// surge_shape, so that a slip in either shows: base t + (peak - base) h / ln 2 (1 - 2^(-t/h)).
double surge_lambda(double base, double peak, double h, double t) {
  return base * t + (peak - base) * h / std::log(2.0) * (1.0 - std::pow(2.0, -t / h));
}
}  // namespace

TEST(Arrivals, SurgeShapeAnswersItsRateAndCumulativeRate) {
  const surge_shape g{20.0, 200.0, 5.0, 30.0};
  EXPECT_DOUBLE_EQ(g.rate_at(0), 200);
  EXPECT_DOUBLE_EQ(g.rate_at(5), 110);  // half of the 180 above the base
  EXPECT_DOUBLE_EQ(g.rate_at(10), 65);
  EXPECT_EQ(g.rate_at(30), 0);  // none from duration_s on
  EXPECT_EQ(g.rate_at(-1), 0);
  EXPECT_NEAR(g.expected_by(12), surge_lambda(20, 200, 5, 12), 1e-9);
  EXPECT_NEAR(g.expected_by(1e9), surge_lambda(20, 200, 5, 30), 1e-9);  // cut at the duration
  EXPECT_DOUBLE_EQ(g.decay_total(), 180 * 5 / std::log(2.0));
  EXPECT_NEAR(arrival_process::surge(g).expected_count(), surge_lambda(20, 200, 5, 30), 1e-9);
  // Without a duration: bounded with no base, endless with one.
  EXPECT_NEAR(arrival_process::surge({0.0, 100.0, 4.0}).expected_count(), 400 / std::log(2.0),
              1e-9);
  EXPECT_TRUE(std::isinf(arrival_process::surge({1.0, 100.0, 4.0}).expected_count()));
}

TEST(Arrivals, SurgeCountsFollowItsDecayingRate) {
  // 2,000 independent runs (one arrivals stream each) of a surge from 200/s to a base of
  // 20/s, half-life 5 s, for 30 s. The count in [0, 30 s] is Poisson with mean Lambda(30)
  // = 1,878.1: the runs' mean within 4 standard errors (sqrt(Lambda / runs) = 0.97), and
  // their variance, Lambda for a Poisson count, within 4 of its standard errors
  // (sqrt((2 Lambda^2 + Lambda) / runs) = 59). Per 3 s bin, the pooled count is Poisson with
  // runs x the rate's integral over the bin: each within 3.89 of its standard deviations,
  // a false alarm of 1e-4 a bin, 1e-3 for the ten.
  const double base = 20, peak = 200, h = 5, duration = 30;
  const int runs = 2000, bins = 10;
  const double width = duration / bins;
  std::vector<double> per_bin(bins, 0.0);
  double sum = 0, sum2 = 0;
  for (int run = 0; run < runs; ++run) {
    auto p = arrival_process::surge({base, peak, h, duration});
    rng r(7, static_cast<std::uint64_t>(run), "arrivals");
    arrival a{};
    double n = 0;
    sim_time last = sim_time::from_ns(0);
    while (p.next(r, a)) {
      ASSERT_GE(a.time, last);
      ASSERT_LT(a.time, sim_time::from_seconds(duration));  // none from duration_s on
      ASSERT_EQ(a.user_class, -1);
      last = a.time;
      ++n;
      per_bin[static_cast<std::size_t>(a.time.seconds() / width)] += 1;
    }
    sum += n;
    sum2 += n * n;
  }
  const double lambda = surge_lambda(base, peak, h, duration);
  const double mean = sum / runs, var = (sum2 - runs * mean * mean) / (runs - 1);
  EXPECT_NEAR(mean, lambda, 4 * std::sqrt(lambda / runs));
  EXPECT_NEAR(var, lambda, 4 * std::sqrt((2 * lambda * lambda + lambda) / runs));
  for (int k = 0; k < bins; ++k) {
    const double expected = runs * (surge_lambda(base, peak, h, (k + 1) * width) -
                                    surge_lambda(base, peak, h, k * width));
    EXPECT_NEAR(per_bin[static_cast<std::size_t>(k)], expected, 3.89 * std::sqrt(expected))
        << "bin " << k;
  }
}

TEST(Arrivals, SurgeWithoutBaseOrDurationEndsByItself) {
  // Peak 100/s, half-life 4 s: peak h / ln 2 = 577.1 users on average, the runs' mean within
  // 4 standard errors (sqrt(577.1 / 2,000) = 0.54); every run ends.
  const int runs = 2000;
  const double total = 100 * 4 / std::log(2.0);
  double sum = 0;
  for (int run = 0; run < runs; ++run) {
    auto p = arrival_process::surge({0.0, 100.0, 4.0});
    rng r(11, static_cast<std::uint64_t>(run), "arrivals");
    arrival a{};
    int n = 0;
    while (p.next(r, a)) ASSERT_LT(++n, 10000);
    EXPECT_FALSE(p.next(r, a));  // and stays ended
    sum += n;
  }
  EXPECT_NEAR(sum / runs, total, 4 * std::sqrt(total / runs));
}

TEST(Arrivals, SurgeIsReproducibleBySeed) {
  auto draw = [](std::uint64_t seed) {
    auto p = arrival_process::surge({5.0, 500.0, 2.0, 20.0});
    rng r(seed, 0, "arrivals");
    arrival a{};
    std::vector<std::int64_t> out;
    while (p.next(r, a)) out.push_back(a.time.ns());
    return out;
  };
  EXPECT_EQ(draw(3), draw(3));
  EXPECT_NE(draw(3), draw(4));
}
