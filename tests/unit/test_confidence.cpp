// Confidence intervals pinned to hand-computed values, and the decisions resting on them:
// SLA verdicts and `compare`'s paired differences. A wrong degrees of freedom narrows a
// 5-replication interval by 7%; only exact expectations catch that.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "models/sla/sla.hpp"
#include "reports/report.hpp"
#include "sim/confidence.hpp"
#include "sim/moments.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

namespace {
// {1, 2, 3, 4, 5}: mean 3, sample variance 2.5, standard error sqrt(2.5 / 5) = sqrt(0.5);
// t(0.975, 4 df) = 2.776445 (tables), so the 95% half-width is 2.776445 * sqrt(0.5).
const std::vector<double> one_to_five = {1, 2, 3, 4, 5};
constexpr double t_975_4 = 2.7764451;
const double half_width_95 = t_975_4 * std::sqrt(0.5);  // 1.963243
}  // namespace

TEST(Confidence, HalfWidthOfOneToFiveAt95PercentFromBothForms) {
  EXPECT_NEAR(half_width_95, 1.963243, 1e-6);
  auto from_values = sim::mean_interval(one_to_five, 0.95);
  EXPECT_DOUBLE_EQ(from_values.mean, 3.0);
  EXPECT_NEAR(from_values.half_width, half_width_95, 1e-6);
  sim::running_moments m;
  for (double x : one_to_five) m.add(x);
  EXPECT_DOUBLE_EQ(m.variance(), 2.5);
  auto from_moments = sim::mean_interval(m, 0.95);
  EXPECT_DOUBLE_EQ(from_moments.mean, 3.0);
  EXPECT_NEAR(from_moments.half_width, half_width_95, 1e-6);
  EXPECT_NEAR(from_moments.half_width, from_values.half_width, 1e-12);
  EXPECT_DOUBLE_EQ(from_values.lo(), 3.0 - from_values.half_width);
  EXPECT_DOUBLE_EQ(from_values.hi(), 3.0 + from_values.half_width);
  // 99%: t(0.995, 4) = 4.604095.
  EXPECT_NEAR(sim::mean_interval(one_to_five, 0.99).half_width, 4.604095 * std::sqrt(0.5), 1e-5);
  EXPECT_NEAR(sim::mean_interval(m, 0.99).half_width, 4.604095 * std::sqrt(0.5), 1e-5);
}

TEST(Confidence, EdgeCasesOfBothForms) {
  EXPECT_EQ(sim::mean_interval(std::vector<double>{}, 0.95).half_width, 0.0);
  EXPECT_EQ(sim::mean_interval(sim::running_moments{}, 0.95).half_width, 0.0);
  // One value: no spread to estimate, so no finite interval.
  auto one = sim::mean_interval(std::vector<double>{7.0}, 0.95);
  EXPECT_EQ(one.mean, 7.0);
  EXPECT_TRUE(std::isinf(one.half_width));
  sim::running_moments m;
  m.add(7.0);
  EXPECT_TRUE(std::isinf(sim::mean_interval(m, 0.95).half_width));
  // Two values 0 and 2: mean 1, sd sqrt(2), t(0.975, 1) = 12.706205.
  EXPECT_NEAR(sim::mean_interval(std::vector<double>{0.0, 2.0}, 0.95).half_width, 12.706205, 1e-5);
  EXPECT_TRUE(sim::interval({3.0, 1.0}).contains(2.0));
  EXPECT_TRUE(sim::interval({3.0, 1.0}).contains(4.0));
  EXPECT_FALSE(sim::interval({3.0, 1.0}).contains(4.0 + 1e-9));
  EXPECT_FALSE(sim::interval({3.0, 1.0}).contains(2.0 - 1e-9));
}

TEST(Confidence, CompareReportsThePairedDifferenceInterval) {
  // Five replications; the variant waits 1, 2, 3, 4, 5 s longer than the base in replication
  // 1..5 (on top of a base that varies): the difference's interval is 3 +- 1.963243, while
  // each variant's own interval is wider.
  auto s = testing_support::scenario_from(R"({"name": "pair", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 1},
    "release": {"mode": "tick", "interval_ms": 1000, "batch": 1}, "run": {"horizon_s": 10}})");
  const std::vector<double> base_means = {10, 30, 20, 50, 40};
  std::vector<std::vector<models::room_result>> runs(2);
  for (std::size_t r = 0; r < base_means.size(); ++r)
    for (std::size_t v = 0; v < 2; ++v) {
      models::room_result res;
      res.by_class.resize(1);
      const double x = base_means[r] + (v ? one_to_five[r] : 0.0);
      res.overall.wait_s.add(x);
      res.by_class[0].wait_s.add(x);
      runs[v].push_back(res);
    }
  auto j = reports::compare_json({"base", "longer"}, {&s, &s}, runs, 0.95);
  for (std::size_t c = 0; c < 2; ++c) {  // everyone, then the class
    const auto& d = j["variants"][1]["classes"][c]["mean_wait_s"]["difference"];
    EXPECT_DOUBLE_EQ(d["estimate"].get<double>(), 3.0);
    EXPECT_NEAR(d["ci"][0].get<double>(), 3.0 - half_width_95, 1e-6);
    EXPECT_NEAR(d["ci"][1].get<double>(), 3.0 + half_width_95, 1e-6);
  }
  EXPECT_FALSE(j["variants"][0]["classes"][0]["mean_wait_s"].contains("difference"));
  EXPECT_DOUBLE_EQ(j["variants"][1]["classes"][0]["mean_wait_s"]["estimate"].get<double>(), 33.0);
}

namespace {
// Tables of five replications whose metric for everyone is 1..5 (3 +- 1.963243 at 95%).
std::vector<models::metric_table> tables_one_to_five(models::sla_metric m) {
  std::vector<models::metric_table> ts;
  for (double x : one_to_five) {
    // A row: values, lower bounds, upper bounds (all equal: nobody censored), counts.
    models::metric_table t(2, models::metric_row(models::metric_row_width(), 0.0));
    const std::size_t n = models::sla_metric_names().size();
    for (std::size_t k : {std::size_t{0}, n, 2 * n}) {
      t[0][k + static_cast<std::size_t>(m)] = x;         // everyone
      t[1][k + static_cast<std::size_t>(m)] = 10.0 * x;  // class 0
    }
    ts.push_back(t);
  }
  return ts;
}
}  // namespace

TEST(Confidence, SlaVerdictRestsOnTheIntervalBoundInclusive) {
  const auto m = models::sla_metric::p95_wait_s;
  const auto ts = tables_one_to_five(m);
  const double hi = sim::mean_interval(one_to_five, 0.95).hi();
  const double lo = sim::mean_interval(one_to_five, 0.95).lo();
  ASSERT_NEAR(hi, 3.0 + half_width_95, 1e-6);
  auto verdict = [&](std::optional<double> max, std::optional<double> min, std::int32_t c = -1) {
    models::sla_spec spec;
    spec.confidence = 0.95;
    spec.targets.push_back({c, m, max, min});
    auto out = models::evaluate(spec, ts);
    EXPECT_EQ(out.size(), 1u);
    return out.at(0);
  };
  auto at_bound = verdict(hi, std::nullopt);
  EXPECT_TRUE(at_bound.pass);  // the bound equal to the limit passes
  EXPECT_DOUBLE_EQ(at_bound.estimate.mean, 3.0);
  EXPECT_NEAR(at_bound.estimate.half_width, half_width_95, 1e-6);
  EXPECT_FALSE(verdict(std::nextafter(hi, 0.0), std::nullopt).pass);
  EXPECT_FALSE(verdict(4.5, std::nullopt).pass);  // the mean is below, the bound is not
  EXPECT_TRUE(verdict(std::nullopt, lo).pass);
  EXPECT_FALSE(verdict(std::nullopt, std::nextafter(lo, 10.0)).pass);
  EXPECT_FALSE(verdict(std::nullopt, 1.5).pass);  // the mean is above, the bound is not
  EXPECT_TRUE(verdict(hi, lo).pass);
  EXPECT_FALSE(verdict(hi, std::nextafter(lo, 10.0)).pass);
  EXPECT_FALSE(verdict(std::nextafter(hi, 0.0), lo).pass);
  // Class 0's values are ten times larger: its interval is 30 +- 19.63.
  EXPECT_TRUE(verdict(30 + 10 * half_width_95 + 1e-6, std::nullopt, 0).pass);
  EXPECT_FALSE(verdict(30 + 10 * half_width_95 - 1e-6, std::nullopt, 0).pass);
  // A wider confidence level widens the interval: 99% fails where 95% passes.
  models::sla_spec strict;
  strict.confidence = 0.99;
  strict.targets.push_back({-1, m, hi, std::nullopt});
  EXPECT_FALSE(models::evaluate(strict, ts).at(0).pass);
}

TEST(Confidence, MetricValuesReadTheRightFigures) {
  models::room_result r;
  r.by_class.resize(2);
  auto& w = r.by_class[1];
  // 200 users counted (after warm-up): 100 released, 20 refused, 30 gave up, 50 still waiting.
  w.arrived = 200;
  w.refused = w.refused_counted = 20;
  w.waiting_at_end = 50;
  w.abandoned = 30;
  for (std::int64_t s = 1; s <= 100; ++s) {
    w.wait_s.add(static_cast<double>(s));
    w.wait_ns.add(s * 1'000'000'000);
  }
  for (int k = 0; k < 30; ++k) w.abandon_s.add(1.0);
  for (int k = 0; k < 50; ++k) w.censored_s.add(1.0);
  using models::sla_metric;
  auto v = [&](sla_metric m) { return models::metric_value(r, 1, m); };
  const double rel = sim::log_histogram::max_relative_width / 2;
  EXPECT_DOUBLE_EQ(v(sla_metric::mean_wait_s), 50.5);
  EXPECT_NEAR(v(sla_metric::p50_wait_s), 50, 50 * rel);
  EXPECT_NEAR(v(sla_metric::p90_wait_s), 90, 90 * rel);
  EXPECT_NEAR(v(sla_metric::p95_wait_s), 95, 95 * rel);
  EXPECT_NEAR(v(sla_metric::p99_wait_s), 99, 99 * rel);
  EXPECT_NEAR(v(sla_metric::p999_wait_s), 100, 100 * rel);
  EXPECT_DOUBLE_EQ(v(sla_metric::max_wait_s), 100.0);
  EXPECT_DOUBLE_EQ(v(sla_metric::refused_share), 0.1);
  EXPECT_DOUBLE_EQ(v(sla_metric::waiting_at_end_share), 0.25);
  EXPECT_DOUBLE_EQ(v(sla_metric::abandoned_share), 0.15);
  // Everyone (-1) is `overall`; the first class (0) is its own.
  r.overall.wait_s.add(7.0);
  r.by_class[0].wait_s.add(3.0);
  EXPECT_DOUBLE_EQ(models::metric_value(r, -1, sla_metric::mean_wait_s), 7.0);
  EXPECT_DOUBLE_EQ(models::metric_value(r, 0, sla_metric::mean_wait_s), 3.0);
  EXPECT_DOUBLE_EQ(models::metric_value(r, -1, sla_metric::refused_share), 0.0);
  // Figures the run did not measure are missing (NaN), never 0.
  EXPECT_TRUE(std::isnan(models::metric_value(r, -1, sla_metric::eta_mae_s)));
  EXPECT_TRUE(std::isnan(models::metric_value(r, -1, sla_metric::backend_error_rate)));
}
