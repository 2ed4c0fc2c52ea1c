// Bounds that count users still waiting at the end, and SLA verdicts on censored or missing
// data: never a pass that the censored users could overturn, never a 0 for nobody.
#include <gtest/gtest.h>

#include <cmath>

#include "models/results/censoring.hpp"
#include "models/room/warmup.hpp"
#include "models/sla/sla.hpp"

using namespace waitroom;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// Released waits and censored times so far, in whole seconds.
models::wait_stats waits(std::initializer_list<int> released, std::initializer_list<int> censored) {
  models::wait_stats w;
  for (int x : released) {
    w.wait_s.add(x);
    w.wait_ns.add(x * s_ns);
  }
  for (int x : censored) {
    w.censored_s.add(x);
    if (!w.censored_ns) w.censored_ns.emplace();
    w.censored_ns->add(x * s_ns);
  }
  w.released = w.wait_s.count();
  w.waiting_at_end = w.censored_s.count();
  w.arrived = w.released + w.waiting_at_end;
  return w;
}

// A one-class table row set for evaluate(): every replication the same result.
std::vector<models::metric_table> tables(const models::wait_stats& w, int reps, double jitter) {
  std::vector<models::metric_table> out;
  for (int r = 0; r < reps; ++r) {
    models::room_result res;
    res.class_names = {"a"};
    auto wr = w;
    wr.wait_s.add(jitter * r);  // replications differ a little
    wr.wait_ns.add(static_cast<std::int64_t>(jitter * r * 1e9));
    res.by_class = {wr};
    res.overall = wr;
    out.push_back(models::tabulate(res));
  }
  return out;
}

models::sla_spec spec(models::sla_metric m, double max) {
  models::sla_spec s;
  s.targets.push_back({0, m, max, std::nullopt});
  return s;
}

}  // namespace

TEST(Censoring, WithoutCensoredUsersTheBoundsAreTheStatistics) {
  const auto w = waits({1, 2, 3, 4}, {});
  const auto m = models::mean_bounds(w);
  EXPECT_EQ(m.lower, w.wait_s.mean());
  EXPECT_EQ(m.upper, w.wait_s.mean());
  for (double q : {0.5, 0.9, 0.99}) {
    const auto b = models::quantile_bounds(w, q);
    EXPECT_EQ(b.lower, w.wait_ns.quantile(q) * 1e-9);
    EXPECT_EQ(b.upper, b.lower);
  }
  EXPECT_EQ(models::max_bounds(w).upper, 4.0);
}

TEST(Censoring, CensoredUsersCountAtTheirTimeSoFarAndOpenWhatTheyHold) {
  // Released 1, 2, 3; one user still waiting after 10 s.
  const auto w = waits({1, 2, 3}, {10});
  const auto m = models::mean_bounds(w);
  EXPECT_DOUBLE_EQ(m.lower, 4.0);  // (1 + 2 + 3 + 10) / 4
  EXPECT_FALSE(m.upper);           // the waiting user could wait for ever
  // p50: nearest rank 2 of 4, among the released waits whatever the censored one does.
  const auto p50 = models::quantile_bounds(w, 0.5);
  EXPECT_NEAR(p50.lower, 2.0, 2.0 * 0.004);
  ASSERT_TRUE(p50.upper);
  EXPECT_NEAR(*p50.upper, 2.0, 2.0 * 0.004);
  // p90: rank 4 of 4 is the waiting user's: at least 10 s, not decidable.
  const auto p90 = models::quantile_bounds(w, 0.9);
  EXPECT_NEAR(p90.lower, 10.0, 10.0 * 0.004);
  EXPECT_FALSE(p90.upper);
  EXPECT_DOUBLE_EQ(models::max_bounds(w).lower, 10.0);
  EXPECT_FALSE(models::max_bounds(w).upper);
  // Nobody at all: no figure, not 0.
  EXPECT_TRUE(std::isnan(models::mean_bounds(waits({}, {})).lower));
}

TEST(Censoring, ACensoredTargetIsUndecidedUntilItCannotMatter) {
  // The shape: a few released users waited little, most are still waiting.
  const auto many = waits({80, 85, 90}, {60, 70, 80, 90, 100, 100, 100});
  auto o = models::evaluate(spec(models::sla_metric::mean_wait_s, 120), tables(many, 5, 0.1));
  ASSERT_EQ(o.size(), 1u);
  EXPECT_TRUE(o[0].estimate.hi() <= 120);  // the released users alone would pass
  EXPECT_EQ(o[0].verdict, models::sla_verdict::undecided);
  EXPECT_FALSE(o[0].pass);
  EXPECT_NE(o[0].reason.find("still waiting"), std::string::npos);
  EXPECT_DOUBLE_EQ(o[0].censored, 35.0);
  // Even counted at their time so far they break a limit of 50: a plain failure.
  o = models::evaluate(spec(models::sla_metric::mean_wait_s, 50), tables(many, 5, 0.1));
  EXPECT_EQ(o[0].verdict, models::sla_verdict::fail);
  // A percentile the released waits decide passes: p50 is rank 50 of 100 with 1 waiting.
  models::wait_stats few;
  for (int i = 1; i <= 99; ++i) {
    few.wait_s.add(1.0);
    few.wait_ns.add(s_ns);
  }
  few.censored_s.add(500);
  few.censored_ns.emplace();
  few.censored_ns->add(500 * s_ns);
  o = models::evaluate(spec(models::sla_metric::p50_wait_s, 2), tables(few, 5, 0.01));
  EXPECT_EQ(o[0].verdict, models::sla_verdict::pass);
  // p99 is the waiting user's rank: not decidable.
  o = models::evaluate(spec(models::sla_metric::p999_wait_s, 1000), tables(few, 5, 0.01));
  EXPECT_EQ(o[0].verdict, models::sla_verdict::undecided);
}

TEST(Censoring, AClassWithNoReleasedUserIsUndecidedNotZero) {
  models::room_result r;
  r.class_names = {"a"};
  r.by_class = {waits({}, {5, 6})};
  r.overall = r.by_class[0];
  EXPECT_TRUE(std::isnan(models::metric_value(r, 0, models::sla_metric::mean_wait_s)));
  EXPECT_TRUE(std::isnan(models::metric_value(r, 0, models::sla_metric::p99_wait_s)));
  std::vector<models::metric_table> ts(3, models::tabulate(r));
  auto o = models::evaluate(spec(models::sla_metric::mean_wait_s, 120), ts);
  EXPECT_EQ(o[0].verdict, models::sla_verdict::undecided);
  EXPECT_NE(o[0].reason.find("no released user"), std::string::npos) << o[0].reason;
  // Nobody came at all: the shares have no denominator either.
  r.by_class = {models::wait_stats{}};
  r.overall = r.by_class[0];
  EXPECT_TRUE(std::isnan(models::metric_value(r, 0, models::sla_metric::abandoned_share)));
}

TEST(Censoring, OneWarmupRuleForEveryStatistic) {
  models::run_spec time;
  time.warmup = models::warmup_kind::time;
  time.warmup_s = 10;
  models::warmup w(time);
  EXPECT_FALSE(w.counts(9 * s_ns));
  EXPECT_TRUE(w.counts(10 * s_ns));
  EXPECT_EQ(w.counted_from_ns(), 10 * s_ns);
  models::run_spec customers;
  customers.warmup = models::warmup_kind::customers;
  customers.warmup_customers = 2;
  models::warmup k(customers);
  EXPECT_FALSE(k.counts(0));  // nothing released yet: still warming up
  EXPECT_FALSE(k.counted_from_ns());
  EXPECT_FALSE(k.record(0, 1));
  k.released_at(3 * s_ns);
  EXPECT_FALSE(k.record(0, 1));
  k.released_at(4 * s_ns);
  EXPECT_TRUE(k.counts(0));  // the second release ended it; the third counts
  EXPECT_EQ(k.counted_from_ns(), 4 * s_ns);
  EXPECT_TRUE(k.record(0, 1));
  k.released_at(5 * s_ns);
  EXPECT_EQ(k.counted_from_ns(), 4 * s_ns);
}
