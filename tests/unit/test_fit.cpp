// Fitting a log: censored survival (patience, service) and change points in arrivals, against
// hand calculations and against data drawn from known laws. Coverage checks count seeds: a
// 95% interval misses the truth in k of m seeds with probability P(Binomial(m, 0.05) >= k),
// stated beside each threshold.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <sstream>
#include <vector>

#include "models/fit/calibrate.hpp"
#include "models/fit/change_points.hpp"
#include "models/fit/event_log.hpp"
#include "models/fit/fit_check.hpp"
#include "models/fit/sample.hpp"
#include "models/fit/survival.hpp"
#include "sim/input_error.hpp"
#include "sim/random.hpp"

using namespace waitroom;
using models::fit::family;
using models::fit::observation;

namespace {

double exponential_draw(sim::rng& r, double mean) {
  return -std::log(r.uniform_open0()) * mean;
}

// Patience X from `draw`, censored by a release after C ~ exponential(release_mean): the log
// holds min(X, C) and whether the user gave up first.
template <class Draw>
std::vector<observation> censored_sample(std::uint64_t seed, std::size_t n, Draw draw,
                                         double release_mean) {
  sim::rng r(seed);
  std::vector<observation> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = draw(r);
    const double c = exponential_draw(r, release_mean);
    out.push_back({std::min(x, c), x <= c});
  }
  return out;
}

bool covers(const models::fit::parameter& p, double truth) {
  return p.lo <= truth && truth <= p.hi;
}

}  // namespace

TEST(KaplanMeier, StepsAtEventsAsByHand) {
  const std::vector<observation> obs{{1, true}, {2, false}, {3, true}, {3, true}, {4, false}};
  const auto km = models::fit::kaplan_meier(obs);
  ASSERT_EQ(km.size(), 2u);
  EXPECT_DOUBLE_EQ(km[0].t_s, 1);
  EXPECT_DOUBLE_EQ(km[0].survival, 0.8);  // 1 of 5 at risk
  EXPECT_DOUBLE_EQ(km[1].t_s, 3);
  EXPECT_DOUBLE_EQ(km[1].survival, 0.8 / 3);  // 2 of the 3 left at risk (one censored at 2)
  // Greenwood: 1/(5*4) + 2/(3*1); the log(-log) interval holds the estimate.
  const double s = 0.8 / 3, se = std::sqrt(0.05 + 2.0 / 3) / std::abs(std::log(s));
  const double z = boost::math::quantile(boost::math::normal(), 0.975);
  EXPECT_NEAR(km[1].lo, std::pow(s, std::exp(z * se)), 1e-12);
  EXPECT_NEAR(km[1].hi, std::pow(s, std::exp(-z * se)), 1e-12);
  EXPECT_LT(km[1].lo, s);
  EXPECT_GT(km[1].hi, s);
}

TEST(SurvivalFit, ExponentialIsEventsOverExposureWithAProfileInterval) {
  const std::vector<observation> obs{{10, true}, {20, false}, {30, true}, {40, false}, {50, true}};
  const auto f = models::fit::fit_survival(obs, family::exponential);
  const double rate = 3.0 / 150;
  EXPECT_NEAR(f.parameters[0].value, rate, 1e-9 * rate);
  // At each end of the interval the log-likelihood d ln(l) - l T is 3.841/2 below its maximum.
  const auto ll = [](double l) { return 3 * std::log(l) - l * 150; };
  EXPECT_NEAR(ll(rate) - ll(f.parameters[0].lo), 3.841458820694124 / 2, 1e-6);
  EXPECT_NEAR(ll(rate) - ll(f.parameters[0].hi), 3.841458820694124 / 2, 1e-6);
  EXPECT_NEAR(f.log_likelihood, ll(rate), 1e-9);
  EXPECT_NEAR(f.aic, 2 - 2 * ll(rate), 1e-9);
}

TEST(SurvivalFit, RefusesNoEventsAndWaitsNotAboveZero) {
  EXPECT_THROW(models::fit::fit_survival(std::vector<observation>{{5, false}}, family::weibull),
               std::invalid_argument);
  EXPECT_THROW(models::fit::fit_survival(std::vector<observation>{{0, true}}, family::exponential),
               std::invalid_argument);
}

// Patience exponential with mean 120 s, released after a mean 60 s: two users in three are
// released (censored). Over 20 seeds the censored fit's interval misses the truth in at most
// 4 (P(Binomial(20, 0.05) >= 5) = 0.003); ignoring censoring (the give-ups' own waits, the
// only patience a log without censoring shows) puts the mean near 40 s in every seed.
TEST(SurvivalFit, CensoringMattersAndTheCensoredIntervalCovers) {
  const double mean = 120;
  int covered = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto obs = censored_sample(
        seed, 1000, [&](sim::rng& r) { return exponential_draw(r, mean); }, 60);
    const auto f = models::fit::fit_survival(obs, family::exponential);
    covered += covers(f.parameters[0], 1 / mean);
    std::vector<observation> naive;
    for (const auto& o : obs)
      if (o.event) naive.push_back(o);
    const auto g = models::fit::fit_survival(naive, family::exponential);
    EXPECT_LT(g.mean_s(), 0.5 * mean) << "seed " << seed;
    EXPECT_FALSE(covers(g.parameters[0], 1 / mean)) << "seed " << seed;
  }
  EXPECT_GE(covered, 16);
}

// Weibull patience (shape 1.6, scale 200 s) and lognormal (mu ln 100, sigma 0.8), half or so
// censored: AIC names the right family in at least 7 of 8 seeds and each parameter's interval
// covers the truth in at least 6 of 8 (P(Binomial(8, 0.05) >= 3) = 0.006).
TEST(SurvivalFit, RecoversWeibullAndLognormalAndChoosesTheFamily) {
  const boost::math::normal normal;
  struct law {
    family f;
    std::array<double, 2> truth;
  };
  for (const law& l :
       {law{family::weibull, {1.6, 200}}, law{family::lognormal, {std::log(100.0), 0.8}}}) {
    int chosen = 0;
    std::array<int, 2> covered{};
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      const auto draw = [&](sim::rng& r) {
        const double u = r.uniform_open0();
        return l.f == family::weibull
                   ? l.truth[1] * std::pow(-std::log(u), 1 / l.truth[0])
                   : std::exp(l.truth[0] + l.truth[1] * boost::math::quantile(normal, u));
      };
      const auto obs = censored_sample(seed, 1500, draw, 150);
      const auto fits = models::fit::fit_families(obs);
      chosen += fits[0].kind == l.f;
      for (const auto& f : fits)
        if (f.kind == l.f)
          for (std::size_t j = 0; j < 2; ++j) covered[j] += covers(f.parameters[j], l.truth[j]);
    }
    EXPECT_GE(chosen, 7) << models::fit::name_of(l.f);
    EXPECT_GE(covered[0], 6) << models::fit::name_of(l.f);
    EXPECT_GE(covered[1], 6) << models::fit::name_of(l.f);
  }
}

namespace {

// Poisson counts per 1 s bin of a piecewise-constant rate.
std::vector<std::uint64_t> piecewise_counts(std::uint64_t seed, const std::vector<double>& rates,
                                            const std::vector<std::size_t>& seconds) {
  sim::rng r(seed);
  std::vector<std::uint64_t> counts;
  for (std::size_t k = 0; k < rates.size(); ++k)
    for (std::size_t s = 0; s < seconds[k]; ++s) {
      std::uint64_t c = 0;
      for (double t = exponential_draw(r, 1 / rates[k]); t < 1;
           t += exponential_draw(r, 1 / rates[k]))
        ++c;
      counts.push_back(c);
    }
  return counts;
}

}  // namespace

TEST(ChangePoints, FindsThreeChangesAndTheirRates) {
  const std::vector<double> rates{5, 50, 20, 2};
  const std::vector<std::size_t> seconds{60, 30, 90, 60};
  int exact = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto segs = models::fit::fit_change_points(piecewise_counts(seed, rates, seconds), 1.0);
    if (segs.size() != 4) continue;
    ++exact;
    double start = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_NEAR(segs[k].start_s, start, 3) << "seed " << seed << " segment " << k;
      EXPECT_NEAR(segs[k].rate_per_s, rates[k], 5 * std::sqrt(rates[k] / segs[k].duration_s))
          << "seed " << seed << " segment " << k;
      EXPECT_LE(segs[k].lo, segs[k].rate_per_s);
      EXPECT_GE(segs[k].hi, segs[k].rate_per_s);
      start += static_cast<double>(seconds[k]);
    }
  }
  EXPECT_GE(exact, 9);
}

TEST(ChangePoints, AConstantRateIsOneSegmentAndCountsAddUp) {
  int one = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto counts = piecewise_counts(seed, {30}, {240});
    const auto segs = models::fit::fit_change_points(counts, 1.0);
    one += segs.size() == 1;
    std::uint64_t total = 0, in_segments = 0;
    for (auto c : counts) total += c;
    for (const auto& s : segs) in_segments += s.arrivals;
    EXPECT_EQ(in_segments, total);
    EXPECT_DOUBLE_EQ(segs.back().start_s + segs.back().duration_s, 240);
  }
  EXPECT_GE(one, 9);
  EXPECT_THROW(models::fit::fit_change_points(std::vector<std::uint64_t>{}, 1.0),
               std::invalid_argument);
  EXPECT_THROW(models::fit::fit_change_points(std::vector<std::uint64_t>{1, 2}, 0.0),
               std::invalid_argument);
}

namespace {

std::vector<models::fit::user_record> read_log(const std::string& text,
                                               models::fit::time_unit unit = {}) {
  std::istringstream in(text);
  std::vector<models::fit::user_record> out;
  models::fit::read_event_log(in, "log", unit,
                              [&](const models::fit::user_record& r) { out.push_back(r); });
  return out;
}

// The message of the input_error reading `text` throws ("" if none).
std::string log_error(const std::string& text) {
  try {
    read_log(text);
  } catch (const sim::input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(EventLog, ReadsIso8601WithItsOffset) {
  using models::fit::parse_iso8601;
  EXPECT_DOUBLE_EQ(*parse_iso8601("2026-11-29T10:00:00Z"), 1795946400.0);
  EXPECT_DOUBLE_EQ(*parse_iso8601("2026-11-29T11:00:00+01:00"), 1795946400.0);
  EXPECT_DOUBLE_EQ(*parse_iso8601("2026-11-29T05:30:00-0430"), 1795946400.0);
  EXPECT_DOUBLE_EQ(*parse_iso8601("1999-12-31 23:59:59.250Z"), 946684799.25);
  EXPECT_FALSE(parse_iso8601("2026-11-29T10:00:00"));  // no offset: the zone is unknown
  EXPECT_FALSE(parse_iso8601("2026-02-30T10:00:00Z"));
  EXPECT_FALSE(parse_iso8601("2026-11-29T24:00:00Z"));
  EXPECT_FALSE(parse_iso8601("yesterday"));
}

TEST(EventLog, JsonLinesAndCsvGiveTheSameRecords) {
  const auto j = read_log(
      "{\"user\": \"a\", \"class\": \"vip\", \"joined_at\": 100, \"released_at\": 130.5}\n"
      "\n"
      "{\"user\": 7, \"class\": \"normal\", \"joined_at\": \"1970-01-01T00:01:41Z\", "
      "\"left_at\": 160, \"purchased\": false, \"done_at\": null}\n");
  const auto c = read_log(
      "user,class,joined_at,released_at,left_at,purchased\r\n"
      "a,vip,100,130.5,,\r\n"
      "7,normal,1970-01-01T00:01:41Z,,160,0\r\n");
  ASSERT_EQ(j.size(), 2u);
  ASSERT_EQ(c.size(), 2u);
  for (const auto* log : {&j, &c}) {
    const auto& r = *log;
    EXPECT_EQ(r[0].user, "a");
    EXPECT_EQ(r[0].user_class, "vip");
    EXPECT_DOUBLE_EQ(r[0].joined_s, 100);
    EXPECT_DOUBLE_EQ(*r[0].released_s, 130.5);
    EXPECT_FALSE(r[0].left_s);
    EXPECT_EQ(r[1].user, "7");
    EXPECT_DOUBLE_EQ(r[1].joined_s, 101);
    EXPECT_DOUBLE_EQ(*r[1].left_s, 160);
    EXPECT_FALSE(*r[1].purchased);
    EXPECT_FALSE(r[1].done_s);
  }
  EXPECT_EQ(j[1].line, 3u);  // lines count from 1, blank ones included
  const auto ms = read_log("user,class,joined_at\nx,all,2500\n", models::fit::time_unit::ms);
  EXPECT_DOUBLE_EQ(ms[0].joined_s, 2.5);
}

TEST(EventLog, CsvCellsInQuotesHoldCommasAndQuotesAndMustClose) {
  EXPECT_EQ(log_error("user,class,joined_at\n\"Smith, J.,vip,1\n"),
            "log:2: expected a closing quote for the cell quoted at column 1, found the end of "
            "the line");
  EXPECT_EQ(log_error("user,class,joined_at\n\"Smith\" J.,vip,1\n"),
            "log:2: expected a comma after the quoted cell closed at column 8, found 'J'");
  const auto r = read_log(
      "user,class,joined_at\n"
      "\"Smith, J.\",\"vip\",1\n"
      "  \"say \"\"hi\"\"\"  ,normal , 2\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].user, "Smith, J.");
  EXPECT_EQ(r[0].user_class, "vip");
  EXPECT_EQ(r[1].user, "say \"hi\"");
  EXPECT_EQ(r[1].user_class, "normal");
  EXPECT_DOUBLE_EQ(r[1].joined_s, 2);
}

TEST(EventLog, BadLogsNameTheLineAndTheField) {
  const std::string head = "user,class,joined_at,released_at,left_at\n";
  EXPECT_EQ(log_error(head + "a,all,10,,\nb,all,5,,\n"),
            "log:3: /joined_at: expected records in the order users joined, found 5.000 s "
            "before the record above");
  EXPECT_EQ(log_error(head + "a,all,10,,4\n"),
            "log:2: /left_at: expected a time at or after joined_at, found 6.000 s before it");
  EXPECT_EQ(log_error(head + "a,all,10,12,\nb,all,11,,\na,all,12,,\n"),
            "log:4: /user: expected each user once, found the user of line 2 again");
  EXPECT_EQ(log_error("user,joined_at\na,1\n"),
            "log:1: expected a header naming the column 'class', found none");
  EXPECT_EQ(log_error("user,class,joined_at,seen_at\n"),
            "log:1: expected only the fields user, class, joined_at, released_at, left_at, "
            "done_at, reached_backend_at, purchased, found 'seen_at'");
  EXPECT_EQ(log_error(head + "a,all,2026-11-29T10:00:00,,\n"),
            "log:2: /joined_at: expected an ISO 8601 time with a UTC offset "
            "(2026-11-29T10:00:00+01:00) or a number, found '2026-11-29T10:00:00'");
  EXPECT_EQ(log_error(head + "a,\xff"
                             "all,1,,\n"),
            "log:2: expected UTF-8 text, found a byte 0xff that is not (column 3)");
  EXPECT_EQ(log_error(""), "log: expected at least one user's record, found none");
  EXPECT_EQ(log_error(head + "a,all,1,2,3\n"),
            "log:2: /left_at: expected a user who gave up or was released, not both, found "
            "left_at and released_at");
  EXPECT_EQ(log_error(head + "a,all,1,2\n"),
            "log:2: expected 5 cells, as the header names, found 4");
  EXPECT_EQ(log_error("{\"user\": \"a\", \"class\": \"all\"}\n"),
            "log:1: /joined_at: expected the time the user joined, found none");
  EXPECT_EQ(log_error("{\"user\": \"a\", \"class\": \"all\", \"joined_at\": 1\n"),
            log_error("{\"user\": \"a\", \"class\": \"all\", \"joined_at\": 1\n"));
  EXPECT_NE(log_error("{\"user\": \"a\", \"class\": \"all\", \"joined_at\": 1\n")
                .find("log:1: expected a JSON object on each line"),
            std::string::npos);
}

TEST(EventLog, ReadsTheProgramsOwnTrace) {
  const auto r = read_log(
      R"({"t_s":0,"user":0,"token":"aa","class":"vip","action":"enter","list":0,"queue_length":1}
{"t_s":0.5,"user":null,"token":null,"class":"normal","action":"direct","list":-1,"queue_length":1}
{"t_s":1,"user":1,"token":"bb","class":"normal","action":"enter","list":0,"queue_length":2}
{"t_s":2,"user":0,"token":"aa","class":"vip","action":"release","list":0,"queue_length":1}
{"t_s":2,"user":0,"token":"aa","class":"vip","action":"no_show","list":-1,"queue_length":1}
{"t_s":3,"user":1,"token":"bb","class":"normal","action":"abandon","list":0,"queue_length":0}
{"t_s":4,"user":2,"token":"cc","class":"vip","action":"enter","list":0,"queue_length":1}
{"t_s":5,"user":2,"token":"cc","class":"vip","action":"release","list":0,"queue_length":0}
{"t_s":5.25,"user":2,"token":"cc","class":"vip","action":"reach","list":-1,"queue_length":0}
{"t_s":6.5,"user":2,"token":"cc","class":"vip","action":"done","list":-1,"queue_length":0}
)");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(*r[2].reached_s, 5.25);
  EXPECT_DOUBLE_EQ(*r[2].done_s, 6.5);
  EXPECT_FALSE(r[0].done_s);
  EXPECT_EQ(r[0].user_class, "vip");
  EXPECT_DOUBLE_EQ(*r[0].released_s, 2);
  EXPECT_TRUE(r[0].no_show);
  EXPECT_EQ(r[1].user_class, "normal");
  EXPECT_DOUBLE_EQ(r[1].joined_s, 1);
  EXPECT_DOUBLE_EQ(*r[1].left_s, 3);
}

namespace {

// A log of a FIFO room by hand: arrivals at 4/s for 300 s then 1/s for 300 s, 25% VIP, every
// user with exponential patience (mean 90 s), one release every 0.4 s (2.5/s) to the first in
// line who is still there; a released user is served for an exponential 2 s after 1 s.
std::string fifo_log(std::uint64_t seed) {
  sim::rng r(seed);
  std::vector<double> joins;
  for (double t = exponential_draw(r, 0.25); t < 600;
       t += exponential_draw(r, t < 300 ? 0.25 : 1.0))
    joins.push_back(t);
  const std::size_t n = joins.size();
  std::vector<std::string> classes(n), out(n);
  std::vector<double> patience(n);
  for (std::size_t u = 0; u < n; ++u) {
    classes[u] = r.uniform01() < 0.25 ? "vip" : "normal";
    patience[u] = exponential_draw(r, 90);
  }
  const auto gave_up = [&](std::size_t u) {
    out[u] = fmt::format("{},{},{:.6f},,{:.6f},,", u, classes[u], joins[u], joins[u] + patience[u]);
  };
  std::size_t head = 0;
  for (double t = 0.4; head < n && t < 1200; t += 0.4) {
    while (head < n && joins[head] <= t && joins[head] + patience[head] < t) gave_up(head++);
    if (head < n && joins[head] <= t) {
      const double reached = t + 1, done = reached + exponential_draw(r, 2);
      out[head] = fmt::format("{},{},{:.6f},{:.6f},,{:.6f},{:.6f}", head, classes[head],
                              joins[head], t, reached, done);
      ++head;
    }
  }
  while (head < n) gave_up(head++);
  std::string log = "user,class,joined_at,released_at,left_at,reached_backend_at,done_at\n";
  for (const auto& l : out) log += l + "\n";
  return log;
}

}  // namespace

TEST(Calibrate, RecoversArrivalsSharesPatienceAndTheRelease) {
  std::istringstream in(fifo_log(5));
  const auto c = models::fit::calibrate(in, "fifo.csv", {});
  ASSERT_EQ(c.segments.size(), 2u);
  EXPECT_NEAR(c.segments[0].duration_s, 300, 5);
  EXPECT_LE(c.segments[0].lo, 4.0);
  EXPECT_GE(c.segments[0].hi, 4.0);
  EXPECT_LE(c.segments[1].lo, 1.0);
  EXPECT_GE(c.segments[1].hi, 1.0);
  ASSERT_EQ(c.classes.size(), 2u);
  for (const auto& cl : c.classes) {
    ASSERT_FALSE(cl.patience.empty()) << cl.name;
    for (const auto& f : cl.patience)
      if (f.kind == family::exponential) {
        EXPECT_LE(f.parameters[0].lo, 1 / 90.0) << cl.name;
        EXPECT_GE(f.parameters[0].hi, 1 / 90.0) << cl.name;
      }
  }
  const auto j = models::fit::fit_json(c);
  for (const auto& cl : j["classes"]) {
    const double truth = cl["name"] == "vip" ? 0.25 : 0.75;
    EXPECT_LE(cl["share"]["lo"].get<double>(), truth);
    EXPECT_GE(cl["share"]["hi"].get<double>(), truth);
  }
  EXPECT_NEAR(c.release_rate_per_s, 2.5, 0.05);
  const auto s = models::fit::scenario_json(c, "fitted");
  EXPECT_DOUBLE_EQ(s["release"]["rate_per_s"].get<double>(), c.release_rate_per_s);
  EXPECT_EQ(s["arrivals"]["segments"].size(), 2u);
  EXPECT_TRUE(s.contains("backend"));
  EXPECT_FALSE(s["backend"].contains("no_show_probability"));  // everyone released came
}

// Logs too small to fit everything: a class with one give-up, or a give-up at one wait, gets
// at most the exponential (two parameters would fit a point mass exactly); a log where
// nobody was released has no release rate, and the scenario is refused rather than made up.
TEST(Calibrate, SmallLogsFitWhatTheyCanAndRefuseWhatTheyCannot) {
  std::istringstream one(
      "user,class,joined_at,released_at,left_at\na,vip,10,,40\n"
      "b,normal,11,30,\nc,normal,12,31,\n");
  const auto c = models::fit::calibrate(one, "one.csv", {});
  for (const auto& cl : c.classes)
    for (const auto& f : cl.patience) EXPECT_EQ(f.kind, family::exponential) << cl.name;
  EXPECT_NO_THROW(models::fit::scenario_json(c, "one"));

  std::istringstream three(
      "user,class,joined_at,released_at,left_at\nb,normal,0,,99\n"
      "c,normal,1,19,\nd,normal,2,20,\n");
  const auto t = models::fit::calibrate(three, "three.csv", {});
  for (const auto& f : t.classes.front().patience) EXPECT_EQ(f.kind, family::exponential);

  std::istringstream none(
      "user,class,joined_at,released_at,left_at\na,vip,10,,40\n"
      "b,vip,11,,50\n");
  const auto n = models::fit::calibrate(none, "none.csv", {});
  try {
    models::fit::scenario_json(n, "none");
    ADD_FAILURE() << "a scenario without a release rate was written";
  } catch (const sim::input_error& e) {
    EXPECT_EQ(e.where(), "none.csv");
    EXPECT_EQ(e.found(), "0 released");
  }
}

TEST(FitCheck, RowsArePredictionIntervalsForOneRunAtBonferronisLevel) {
  using models::sla_metric;
  models::fit::calibration c;
  c.classes.push_back({"vip", 4, 3, 1, 0, {}, {}, {1, 2, 3}});
  // Five runs' tables: everyone's row, then the class's; the class's mean wait 1..5, give-up
  // share 0.25 in each.
  std::vector<models::metric_table> tables;
  for (int r = 1; r <= 5; ++r) {
    models::metric_table t(2, models::metric_row(models::metric_row_width(), 0.0));
    t[1][static_cast<std::size_t>(sla_metric::mean_wait_s)] = r;
    t[1][static_cast<std::size_t>(sla_metric::abandoned_share)] = 0.25;
    tables.push_back(t);
  }
  const auto f = models::fit::check_fit(c, tables);
  ASSERT_EQ(f.rows.size(), 4u);  // mean, p50, p95, give-ups
  EXPECT_DOUBLE_EQ(f.row_level, 1 - 0.05 / 4);
  const auto& mean = f.rows[0];
  EXPECT_EQ(mean.metric, sla_metric::mean_wait_s);
  EXPECT_DOUBLE_EQ(mean.realised, 2);  // (1 + 2 + 3) / 3
  EXPECT_DOUBLE_EQ(mean.model, 3);
  // mean 3, sd sqrt(2.5), Student's t quantile at 1 - 0.0125 / 2 with 4 degrees of freedom
  // (4.314656, Boost.Math), times sqrt(1 + 1/5) for one run.
  const double half = 4.314656 * std::sqrt(2.5) * std::sqrt(1.2);
  EXPECT_NEAR(mean.hi - mean.model, half, 1e-3 * half);
  EXPECT_TRUE(mean.inside);
  EXPECT_DOUBLE_EQ(f.rows[1].realised, 2);  // the median of 1, 2, 3
  EXPECT_DOUBLE_EQ(f.rows[2].realised, 3);  // the 95th percentile
  EXPECT_DOUBLE_EQ(f.rows[3].realised, 0.25);
  EXPECT_TRUE(f.rows[3].inside);   // every run 0.25: a zero-width interval, the log on it
  EXPECT_FALSE(f.rows[1].inside);  // every run's p50 is 0: the log's 2 is outside
  EXPECT_FALSE(f.all_inside());
}

// The reservoir keeps everything, in order, up to its size; past it each of n items is kept
// with probability k / n. 20,000 reservoirs of 3 from 10: each item kept 6,000 times on
// average, binomial sd sqrt(20000 * 0.3 * 0.7) = 64.8; 5 sd either side.
TEST(FitSample, KeepsEveryItemUpToItsSizeThenEachWithEqualChance) {
  models::fit::reservoir<int> small(5, 1);
  for (int i = 0; i < 4; ++i) small.add(i);
  EXPECT_EQ(small.items(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(small.sampled());
  std::vector<int> kept(10, 0);
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    models::fit::reservoir<int> r(3, seed);
    for (int i = 0; i < 10; ++i) r.add(i);
    ASSERT_EQ(r.items().size(), 3u);
    EXPECT_TRUE(r.sampled());
    EXPECT_EQ(r.seen(), 10u);
    for (int i : r.items()) ++kept[static_cast<std::size_t>(i)];
  }
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(kept[static_cast<std::size_t>(i)], 6000, 5 * 64.8) << i;
  models::fit::reservoir<int> a(3, 9), b(3, 9);
  for (int i = 0; i < 100; ++i) {
    a.add(i);
    b.add(i);
  }
  EXPECT_EQ(a.items(), b.items());  // seeded: the same sample
}
