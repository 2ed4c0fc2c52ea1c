#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

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
