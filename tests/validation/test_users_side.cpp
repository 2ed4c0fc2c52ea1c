// The users' side of the waiting page, end to end: polls and their Redis cost, the shown
// rank, ETA accuracy, and what released users do next (reach the backend, or not).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "models/room/room.hpp"
#include "models/sla/sla.hpp"
#include "reports/report.hpp"
#include "sim/confidence.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t t = 0;
  for (auto x : v) t += x;
  return t;
}

// 20,000 users in 40 s (20% VIP, 10 s offset), 50 released every 200 ms; users give up
// after an exponential patience.
std::string crowd(const std::string& polling, const std::string& extra = "") {
  return R"({"name": "crowd", "seed": 11,
    "classes": [{"name": "vip", "share": 0.2, "offset_ms": 10000,
                 "patience_s": {"dist": "exponential", "mean": 600}},
                {"name": "normal", "share": 0.8,
                 "patience_s": {"dist": "exponential", "mean": 300}}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 40, "rate_per_s": 500}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 50},
    "polling": )" +
         polling + extra + "}";
}

}  // namespace

TEST(UsersSide, WithoutCacheCountsEqualTheCounterfactualOfACachedRun) {
  // Polling does not change the queue here (no backend), so the same polls happen with and
  // without the cache: the cached run's "without cache" figures must equal a real run with
  // no cache, command by command and second by second.
  auto cached = models::run_scenario(
      scenario_from(crowd(R"({"interval_s": 3, "cache_s": 10, "follow_share": 0})")), 1);
  auto plain = models::run_scenario(
      scenario_from(crowd(R"({"interval_s": 3, "cache_s": 0, "follow_share": 0})")), 1);
  auto jc = reports::result_json(scenario_from(crowd(R"({"interval_s": 3, "cache_s": 10})")),
                                 cached, "test");
  auto jp = reports::result_json(scenario_from(crowd(R"({"interval_s": 3, "cache_s": 0})")), plain,
                                 "test");
  EXPECT_EQ(jc["polling"]["commands_without_cache"], jp["polling"]["commands"]);
  EXPECT_EQ(jc["polling"]["per_second"]["total_without_cache"],
            jp["polling"]["per_second"]["total"]);
  EXPECT_EQ(jp["polling"]["cache_reduction"].get<double>(), 0.0);
  // 3 s polls through a 10 s cache look up once in 4 polls: per user ceil(K / 4) of its K
  // waiting polls, so between a quarter of all polls and that plus one per user.
  const auto& p = jc["polling"]["polls"];
  const auto waiting = p["while_waiting"].get<double>();
  const auto lookups = p["lookups_while_waiting"].get<double>();
  EXPECT_GE(lookups, waiting / 4);
  EXPECT_LE(lookups, waiting / 4 + static_cast<double>(cached.overall.arrived));
  EXPECT_GT(jc["polling"]["cache_reduction"].get<double>(), 0.5);
}

TEST(UsersSide, FollowingEveryoneSeesExactlyThePopulationsPolls) {
  auto r = models::run_scenario(
      scenario_from(
          crowd(R"({"interval_s": 2, "cache_s": 5, "follow_share": 1, "start_jitter_s": 2})")),
      3);
  const auto& p = *r.polling;
  std::uint64_t followed_polls = 0, followed_users = 0;
  for (const auto& c : p.by_class) {
    followed_polls += c.polls;
    followed_users += c.users;
  }
  EXPECT_EQ(followed_polls, sum(p.per_second.waiting_polls));
  EXPECT_EQ(p.followed_users, r.overall.arrived);
  // Users who left before their first poll are followed but never polled.
  EXPECT_LE(followed_users, p.followed_users);
}

TEST(UsersSide, ReleasedUsersLearnAtTheirNextLookup) {
  // With a 10 s cache over 2 s polls a lookup comes every 10 s, at a phase set by the
  // user's entry: the delay from release to the lookup is in [0, 10) s.
  auto r = models::run_scenario(
      scenario_from(crowd(R"({"interval_s": 2, "cache_s": 10, "follow_share": 0})")), 2);
  const auto& d = r.polling->discovery_delay_s;
  EXPECT_EQ(d.count(), r.overall.released);
  EXPECT_GE(d.min(), 0.0);
  EXPECT_LT(d.max(), 10.0);
}

TEST(UsersSide, EtaIsExactUpToATickWhereNobodyCutsIn) {
  // One class, FIFO, a backlog of 5,000 and 10 released every 200 ms: a user with a ahead is
  // released after (a+1)/50 s up to one tick. Every estimator that sees the real rate must be
  // within a tick (no cache: every answer is fresh).
  auto s = scenario_from(R"({"name": "backlog", "seed": 2,
    "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 0}],
                 "backlog_users": 5000},
    "queue": {"policy": "fifo"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 10},
    "polling": {"interval_s": 1, "cache_s": 0, "follow_share": 0.2, "eta_rounds": 5}})");
  auto r = models::run_scenario(s, 1);
  const auto& c = r.polling->by_class[0];
  ASSERT_GT(c.users, 500u);
  for (std::size_t e = 1; e < models::eta_estimator_count; ++e) {
    SCOPED_TRACE(models::eta_estimator_names()[e]);
    const auto& a = c.eta[e];
    ASSERT_GT(a.predictions, 10000u);
    EXPECT_LE(a.abs_error_ns.quantile(0.9) * 1e-9, 0.2 + 1e-3);
    EXPECT_LE(a.abs_error_s.max(), 0.2 + 1e-3);
  }
  // Releases / elapsed time: also 50/s once the first tick is in.
  EXPECT_LE(c.eta[0].abs_error_ns.quantile(0.9) * 1e-9, 0.2 + 1e-3);
}

TEST(UsersSide, VipsCuttingInMakeNormalEstimatesShortAndMoveRanksBack) {
  // The articles: "people ahead / rate" misleads normal users because VIPs keep cutting in,
  // and their raw rank moves backwards; the minimum over the last 10 s does not (the Redis ZSet VIP
  // article §3.2, §4.4). VIPs (45/s, 10 s offset) cut ahead of normal users (15/s) in their first
  // 10 s; 50/s are released, so the queue never empties while arrivals last. Nobody cuts
  // ahead of a VIP: their estimates are right up to a tick.
  auto s = scenario_from(R"({"name": "cut-in", "seed": 5,
    "classes": [{"name": "vip", "share": 0.75, "offset_ms": 10000}, {"name": "normal", "share": 0.25}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 200, "rate_per_s": 60}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 10},
    "polling": {"interval_s": 1, "cache_s": 0, "follow_share": 1, "smooth_rank_s": 10}})");
  auto r = models::run_scenario(s, 1);
  const auto& vip = r.polling->by_class[0];
  const auto& normal = r.polling->by_class[1];
  const auto& rounds = models::eta_estimator_names();
  ASSERT_EQ(rounds[1], "smoothed_rounds");
  EXPECT_LE(vip.eta[1].abs_error_ns.quantile(0.9) * 1e-9, 0.2 + 1e-3);
  EXPECT_LT(normal.eta[1].error_s.mean(), -1.0);  // too short, by the VIPs still to come
  EXPECT_LT(normal.eta[0].error_s.mean(), -1.0);
  // Ranks: VIPs never move back; normal users do with the raw rank, far less when shown the
  // 10 s minimum (per-user means with 95% t intervals that do not overlap).
  EXPECT_EQ(vip.users_backwards_raw, 0u);
  ASSERT_GT(normal.users, 2000u);
  EXPECT_GT(sim::mean_interval(normal.backwards_raw, 0.95).lo(),
            sim::mean_interval(normal.backwards_smoothed, 0.95).hi());
  EXPECT_GT(normal.users_backwards_raw, normal.users / 4);
  EXPECT_LE(normal.users_backwards_smoothed, normal.users_backwards_raw);
}

namespace {
// 3,000 waiting at opening, 20 released every 200 ms to a backend of 200 workers (50 ms
// mean service: far from full).
std::string no_show(const std::string& backend_extra, const std::string& top_extra = "",
                    int backlog = 3000) {
  return R"({"name": "no-show", "seed": 9,
    "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 0}],
                 "backlog_users": )" +
         std::to_string(backlog) + R"(},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 20},
    "backend": {"workers": 200, "service_s": {"dist": "exponential", "mean": 0.05})" +
         backend_extra + "}" + top_extra + "}";
}
}  // namespace

TEST(UsersSide, NoShowsReleasesComeBackToTheQueue) {
  // Every release not used within reclaim_s gives one more release to a later tick: over
  // ticks while the queue is not empty, released = ticks x batch + reclaimed (exactly; a
  // reclaim at a tick's time is counted in that tick, and the run stops on a tick).
  auto r =
      models::run_scenario(scenario_from(no_show(R"(, "no_show_probability": 0.1, "reclaim_s": 5)",
                                                 R"(, "run": {"horizon_s": 100})", 20000)),
                           1);
  const auto& b = *r.backend;
  const std::uint64_t ticks = 500;
  EXPECT_EQ(r.overall.released, ticks * 20 + b.reclaimed);
  EXPECT_GT(b.reclaimed, 0u);
  // The no-show share is the configured 10%, within 4 binomial standard deviations.
  const double n = static_cast<double>(r.overall.released);
  EXPECT_NEAR(static_cast<double>(b.no_shows) / n, 0.1, 4 * std::sqrt(0.1 * 0.9 / n));
  EXPECT_EQ(b.late, 0u);
  // The rest came: finished, or in the backend at the horizon (at most a second's worth).
  EXPECT_LE(b.completed + b.no_shows, r.overall.released);
  EXPECT_GE(b.completed + b.no_shows + 200, r.overall.released);
}

TEST(UsersSide, UsersWhoLearnTooLateLoseTheirRelease) {
  // 10 s polls: the release is found up to 10 s later, but it is taken back after 4 s.
  auto r = models::run_scenario(
      scenario_from(no_show(R"(, "reclaim_s": 4)",
                            R"(, "polling": {"interval_s": 10, "follow_share": 0},
                                 "run": {"horizon_s": 60})")),
      1);
  const auto& b = *r.backend;
  EXPECT_GT(b.late, 0u);
  EXPECT_EQ(b.no_shows, 0u);
  // Those who learned within 4 s came; the others lost it: about 60% with a uniform phase.
  const double late_share = static_cast<double>(b.late) / static_cast<double>(b.late + b.completed);
  EXPECT_GT(late_share, 0.4);
  EXPECT_LT(late_share, 0.8);
  EXPECT_LE(b.arrival_delay_s.max(), 4.0);
}

TEST(UsersSide, BackendUtilisationIsTheServiceTimeItDid) {
  // Drained: busy worker-seconds are the sum of the service times, whose expectation is
  // completed x 50 ms with a standard deviation of 50 ms x sqrt(completed).
  auto r = models::run_scenario(scenario_from(no_show("")), 4);
  const auto& b = *r.backend;
  const double n = static_cast<double>(b.completed);
  EXPECT_EQ(b.completed, 3000u);
  EXPECT_NEAR(b.busy_worker_s, 0.05 * n, 4 * 0.05 * std::sqrt(n));
  std::uint64_t in_windows = 0;
  for (const auto& w : b.windows) in_windows += w.completed;
  EXPECT_EQ(in_windows, b.completed);
  // 100/s x 50 ms on 200 workers: 2.5% busy while releasing.
  EXPECT_NEAR(b.busy_worker_s / b.capacity_worker_s, 0.025, 0.005);
}

TEST(UsersSide, LittlesLawInTheResultCountsThoseWhoGaveUp) {
  auto s = scenario_from(crowd(R"({"interval_s": 3, "follow_share": 0})"));
  auto r = models::run_scenario(s, 1);
  ASSERT_GT(r.overall.abandoned, 1000u);
  auto j = reports::result_json(s, r, "test");
  EXPECT_LT(j["littles_law"]["relative_gap"].get<double>(), 1e-9);
}

TEST(UsersSide, SlaMetricsAreTheFiguresOfTheResult) {
  auto s = scenario_from(crowd(R"({"interval_s": 2, "cache_s": 10, "follow_share": 0.2})"));
  auto r = models::run_scenario(s, 1);
  auto j = reports::result_json(s, r, "test");
  const auto& p = j["polling"];
  EXPECT_EQ(models::metric_value(r, -1, models::sla_metric::redis_peak_per_s),
            p["peak_per_second"]["total"].get<double>());
  for (std::int32_t c = 0; c < 2; ++c) {
    const auto& fc = p["followed"]["by_class"][static_cast<std::size_t>(c)];
    EXPECT_DOUBLE_EQ(models::metric_value(r, c, models::sla_metric::eta_mae_s),
                     fc["eta"]["smoothed_rounds"]["mae_s"].get<double>());
    EXPECT_DOUBLE_EQ(models::metric_value(r, c, models::sla_metric::rank_moved_back_share),
                     fc["moved_backwards"]["smoothed"]["share_of_users"].get<double>());
  }
  // No backend: its metrics are not numbers (and a scenario asking for them does not load).
  EXPECT_TRUE(std::isnan(models::metric_value(r, -1, models::sla_metric::backend_p95_rt_s)));
}

TEST(UsersSide, ReplicationsReportTheMetricsTheScenarioMeasures) {
  auto s = scenario_from(crowd(R"({"interval_s": 2, "cache_s": 10, "follow_share": 0.1})"));
  std::vector<models::room_result> rs;
  for (std::uint64_t k = 0; k < 3; ++k) rs.push_back(models::run_scenario(s, s.seed, k));
  auto j = reports::replications_json(s, rs, 0.95, "test");
  EXPECT_TRUE(j["classes"][0].contains("eta_mae_s"));
  EXPECT_TRUE(j["classes"][0].contains("abandoned_share"));
  EXPECT_FALSE(j["classes"][0].contains("redis_peak_per_s"));  // a whole-room figure
  EXPECT_TRUE(j["overall"].contains("redis_peak_per_s"));
  EXPECT_FALSE(j["overall"].contains("backend_p95_rt_s"));  // no backend here
  const double peak = j["overall"]["redis_peak_per_s"]["estimate"].get<double>();
  double sum = 0;
  for (const auto& r : rs) sum += models::metric_value(r, -1, models::sla_metric::redis_peak_per_s);
  EXPECT_DOUBLE_EQ(peak, sum / 3);
}

namespace {
std::string ps_backend(int backlog, int batch, int workers, const std::string& service,
                       const std::string& discipline, const std::string& run = "") {
  return R"({"name": "ps", "seed": 4, "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 0}],
                 "backlog_users": )" +
         std::to_string(backlog) + R"(},
    "release": {"mode": "tick", "interval_ms": 200, "batch": )" +
         std::to_string(batch) + R"(},
    "backend": {"workers": )" +
         std::to_string(workers) + R"(, "service_s": )" + service + R"(, "discipline": ")" +
         discipline + R"("})" + run + "}";
}
}  // namespace

TEST(Backend, ProcessorSharingByHand) {
  // Two jobs of 1 s on one worker: FIFO finishes them at 1 s and 2 s; processor sharing
  // serves both at half speed and finishes both at 2 s.
  const std::string one_s = R"({"dist": "deterministic", "value": 1})";
  auto fifo = models::run_scenario(scenario_from(ps_backend(2, 2, 1, one_s, "fifo")), 1);
  auto ps = models::run_scenario(scenario_from(ps_backend(2, 2, 1, one_s, "ps")), 1);
  EXPECT_DOUBLE_EQ(fifo.backend->rt_s.min(), 1.0);
  EXPECT_DOUBLE_EQ(fifo.backend->rt_s.max(), 2.0);
  EXPECT_NEAR(ps.backend->rt_s.min(), 2.0, 1e-9);
  EXPECT_NEAR(ps.backend->rt_s.max(), 2.0, 1e-9);
  // Three jobs on two workers: each at 2/3 of a worker, all done at 1.5 s.
  auto ps3 = models::run_scenario(scenario_from(ps_backend(3, 3, 2, one_s, "ps")), 1);
  EXPECT_NEAR(ps3.backend->rt_s.min(), 1.5, 1e-9);
  EXPECT_NEAR(ps3.backend->rt_s.max(), 1.5, 1e-9);
  EXPECT_NEAR(ps3.backend->busy_worker_s, 3.0, 1e-9);  // two workers for 1.5 s
}

TEST(Backend, ProcessorSharingEqualsFifoInMeanWithExponentialService) {
  // With exponential service the number of jobs in the backend has the same law under any
  // work-conserving discipline that ignores service times (the total service rate is
  // min(n, workers) x mu either way), whatever the arrival process, so by Little's law the
  // mean response times agree. 20 independent replications of each; the difference of the
  // means must be inside its 99.9% t interval (Welch). With constant service they differ.
  auto mean_rts = [](const std::string& json) {
    auto s = scenario_from(json);
    std::vector<double> out;
    for (std::uint64_t k = 0; k < 20; ++k)
      out.push_back(models::run_scenario(s, 1, k).backend->rt_s.mean());
    return out;
  };
  const std::string expo = R"({"dist": "exponential", "mean": 0.12})";
  const std::string run = R"(, "run": {"horizon_s": 600})";
  auto fifo = mean_rts(ps_backend(20000, 6, 4, expo, "fifo", run));
  auto ps = mean_rts(ps_backend(20000, 6, 4, expo, "ps", run));
  sim::running_moments a, b;
  for (double x : fifo) a.add(x);
  for (double x : ps) b.add(x);
  const double se = std::sqrt(a.variance() / 20 + b.variance() / 20);
  EXPECT_LT(std::abs(a.mean() - b.mean()), sim::student_t_quantile(0.9995, 19) * se)
      << a.mean() << " vs " << b.mean();
  const std::string fixed = R"({"dist": "deterministic", "value": 0.12})";
  auto fifo_d = models::run_scenario(scenario_from(ps_backend(20000, 6, 4, fixed, "fifo", run)), 1);
  auto ps_d = models::run_scenario(scenario_from(ps_backend(20000, 6, 4, fixed, "ps", run)), 1);
  // Each tick's 6 jobs of 120 ms share 4 workers: all done at 6 x 0.12 / 4 = 180 ms, before
  // the next tick; FIFO finishes 4 of them at 120 ms and so does better on average.
  EXPECT_NEAR(ps_d.backend->rt_s.mean(), 0.18, 2e-9);  // completions round up to a ns
  EXPECT_NEAR(ps_d.backend->rt_s.max(), 0.18, 2e-9);
  EXPECT_LT(fifo_d.backend->rt_s.mean(), ps_d.backend->rt_s.mean());
}

namespace {
struct collecting_sink : models::trace_sink {
  std::vector<std::pair<std::uint32_t, std::string>> lines;
  void write(const models::trace_event& e) override { lines.emplace_back(e.user, e.action); }
};
}  // namespace

TEST(UsersSide, TraceFollowsReleasedUsersToTheBackend) {
  // Every released user either reaches the backend and is done there, or does not show and
  // has its release taken back; the trace says which, user by user.
  auto s = scenario_from(no_show(R"(, "no_show_probability": 0.2, "reclaim_s": 3,
                 "arrival_delay_s": {"dist": "uniform", "min": 0.5, "max": 1})"));
  models::room r(s, 1);
  collecting_sink sink;
  r.set_trace(&sink, {});
  auto res = r.run();
  std::map<std::uint32_t, std::vector<std::string>> by_user;
  for (const auto& [u, a] : sink.lines) by_user[u].push_back(a);
  std::uint64_t reached = 0, missed = 0, reclaimed = 0;
  for (const auto& [u, actions] : by_user) {
    ASSERT_GE(actions.size(), 3u) << u;
    EXPECT_EQ(actions[0], "enter");
    EXPECT_EQ(actions[1], "release");
    if (actions[2] == "reach") {
      ++reached;
      ASSERT_EQ(actions.size(), 4u) << u;  // the run drains: every response is done
      EXPECT_EQ(actions[3], "done");
    } else {
      ++missed;
      EXPECT_EQ(actions[2], "no_show");
      // Taken back 3 s later, unless the run had drained by then.
      ASSERT_LE(actions.size(), 4u);
      if (actions.size() == 4) {
        EXPECT_EQ(actions[3], "reclaim");
        ++reclaimed;
      }
    }
  }
  EXPECT_EQ(reached, res.backend->completed);
  EXPECT_EQ(missed, res.backend->no_shows);
  EXPECT_EQ(reclaimed, res.backend->reclaimed);
  EXPECT_GT(reclaimed, missed / 2);
}

TEST(UsersSide, ALotteryIsPolledThroughItsSets) {
  // No rank in a lottery: a lookup is SISMEMBER + SCARD, nobody is followed, and the
  // population's counts are still exact (every waiting poll of every user).
  auto s = scenario_from(R"({"name": "lottery", "seed": 3,
    "classes": [{"name": "vip", "share": 0.2}, {"name": "normal", "share": 0.8}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 10, "rate_per_s": 1000}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 40,
                "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}}},
    "polling": {"interval_s": 3, "cache_s": 0, "follow_share": 1}})");
  auto r = models::run_scenario(s, 1);
  auto j = reports::result_json(s, r, "test");
  const auto& c = j["polling"]["commands"];
  EXPECT_EQ(c["SADD"].get<std::uint64_t>(), r.overall.arrived);
  EXPECT_FALSE(c.contains("ZRANK"));
  const auto waiting = j["polling"]["polls"]["while_waiting"].get<std::uint64_t>();
  EXPECT_EQ(c["SCARD"].get<std::uint64_t>(), waiting);  // no cache: every poll looks up
  // One per waiting lookup (still in the waiting set?), two for the lookup that finds the
  // release (not in the waiting set; in the released set).
  EXPECT_EQ(c["SISMEMBER"].get<std::uint64_t>(), waiting + 2 * r.overall.released);
  EXPECT_EQ(r.polling->followed_users, 0u);
}

TEST(UsersSide, NoShowsGiveTheirStockBack) {
  // 1,000 units for 6,000 users arriving over 30 s; a third of the released never come: their
  // release and their unit come back after 5 s, reopening the sold-out queue. Orders are
  // placed on reaching the backend, so every unit is an order, still free, or held by a
  // no-show whose release had not been taken back when the run ended.
  auto s = scenario_from(R"({"name": "stock-no-show", "seed": 6,
    "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 30, "rate_per_s": 200}]},
    "queue": {"policy": "fifo"},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 20},
    "admission": {"stock": 1000},
    "backend": {"workers": 50, "service_s": {"dist": "exponential", "mean": 0.05},
                "no_show_probability": 0.3, "reclaim_s": 5}})");
  auto r = models::run_scenario(s, 1);
  const auto& a = *r.admission;
  const auto& b = *r.backend;
  EXPECT_GT(a.reopenings, 0u);
  EXPECT_GT(b.no_shows, 300u);
  EXPECT_EQ(a.orders, b.completed);
  EXPECT_EQ(a.orders + a.available_at_end + (b.no_shows + b.late - b.reclaimed), a.stock);
  EXPECT_GT(r.overall.released, a.stock);  // the units given back were taken again
}

TEST(UsersSide, CompareShowsWhatTheCacheSaves) {
  // Paired replications of the same crowd with and without the status cache: the waits are
  // the same (polling does not change the queue here), Redis's peak is not.
  auto with = scenario_from(crowd(R"({"interval_s": 2, "cache_s": 10, "follow_share": 0})"));
  auto without = scenario_from(crowd(R"({"interval_s": 2, "cache_s": 0, "follow_share": 0})"));
  std::vector<std::vector<models::room_result>> runs(2);
  for (std::uint64_t k = 0; k < 4; ++k) {
    runs[0].push_back(models::run_scenario(with, with.seed, k));
    runs[1].push_back(models::run_scenario(without, without.seed, k));
  }
  auto j = reports::compare_json({"cache", "nocache"}, {&with, &without}, runs, 0.95);
  const auto& all = j["variants"][1]["classes"][0];
  EXPECT_EQ(all["mean_wait_s"]["difference"]["estimate"].get<double>(), 0.0);
  EXPECT_GT(all["redis_peak_per_s"]["difference"]["ci"][0].get<double>(), 0.0);
  EXPECT_FALSE(all.contains("backend_p95_rt_s"));  // no backend in this crowd
}
