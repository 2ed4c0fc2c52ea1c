// Active-user admission (Cloudflare Waiting Room's model, docs/products.md): exact runs by
// hand for the session cap, both rate windows, the hold (queue_all, prequeue), passthrough
// and reject; the session's end from a visit's requests; with renewal disabled and the
// session revoked on the visit's last request, an M/M/c queue against Erlang C where the
// rate cap does not bind; random ordering and the prequeue's shuffle against the exact odds
// of a uniform draw.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "models/release/active_users.hpp"
#include "models/room/room.hpp"
#include "models/sla/sla.hpp"
#include "sim/confidence.hpp"
#include "sim/input_error.hpp"
#include "support/test_support.hpp"
#include "support/trace_file.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

// A temporary arrivals trace in this suite's folder.
struct trace_file : testing_support::trace_file {
  explicit trace_file(const std::string& text)
      : testing_support::trace_file("active-users", text) {}
};

// One class `all` (or `classes`), FIFO at 1 µs, arrivals from `trace`, and `release` keys
// added to {"mode": "active_users", ...}.
models::scenario by_hand(const trace_file& trace, const std::string& release,
                         const std::string& classes = R"([{"name": "all"}])",
                         const std::string& time_unit = "us") {
  return scenario_from(R"({"name": "by-hand", "classes": )" + classes + R"(,
    "arrivals": {"process": "trace", "trace_file": ")" +
                           trace.path.string() + R"("},
    "queue": {"policy": "fifo", "time_unit": ")" +
                           time_unit + R"("},
    "release": {"mode": "active_users", )" +
                           release + "}}",
                       "/");
}

}  // namespace

TEST(ActiveUsers, TheSessionCapHoldsTheNextUserUntilASessionEnds) {
  // One active user at a time, sessions of exactly 1 min (renewal disabled): arrivals at 0,
  // 10, 20 s are let in at 0, 60, 120 s. Waits 0, 50, 100.
  trace_file t("0,all\n10,all\n20,all\n");
  auto r = models::run_scenario(by_hand(t, R"("total_active_users": 1, "new_users_per_minute": 100,
                    "session_duration_min": 1, "disable_session_renewal": true)"),
                                1);
  ASSERT_EQ(r.overall.released, 3u);
  EXPECT_NEAR(r.overall.wait_s.min(), 0.0, 1e-9);
  EXPECT_NEAR(r.overall.wait_s.mean(), 50.0, 1e-9);
  EXPECT_NEAR(r.overall.wait_s.max(), 100.0, 1e-9);
}

TEST(ActiveUsers, NewUsersPerMinuteCountsClockMinutesOrATrailingMinute) {
  // Two new users a minute, room for 100 active. Arrivals at 0..4 s: 0 and 1 go straight in.
  // Fixed window: at 60 s the next minute lets 2 and 3 in (waits 58, 57), 4 waits for 120 s
  // (116). Sliding window: 2 goes in at 60 s, when the admission at 0 s leaves the trailing
  // minute (58), 3 at 61 s (58), 4 at 120 s (116).
  trace_file t("0,all\n1,all\n2,all\n3,all\n4,all\n");
  const std::string common = R"("total_active_users": 100, "new_users_per_minute": 2,
      "session_duration_min": 10, "disable_session_renewal": true, )";
  auto fixed = models::run_scenario(by_hand(t, common + R"("new_users_window": "fixed")"), 1);
  ASSERT_EQ(fixed.overall.released, 5u);
  EXPECT_NEAR(fixed.overall.wait_s.mean(), (0 + 0 + 58 + 57 + 116) / 5.0, 1e-9);
  EXPECT_NEAR(fixed.overall.wait_s.max(), 116.0, 1e-9);
  auto sliding = models::run_scenario(by_hand(t, common + R"("new_users_window": "sliding")"), 1);
  ASSERT_EQ(sliding.overall.released, 5u);
  EXPECT_NEAR(sliding.overall.wait_s.mean(), (0 + 0 + 58 + 58 + 116) / 5.0, 1e-9);
  EXPECT_NEAR(sliding.overall.wait_s.max(), 116.0, 1e-9);
}

TEST(ActiveUsers, UnderASaturatedRateCapExactlyTheRateGetsInEachMinute) {
  // 5 arrivals a second against 60 new users a minute and no session cap to speak of: the
  // queue never empties, so by 599 s exactly 10 windows x 60 users were let in.
  auto s = scenario_from(R"({"name": "rate-bound", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 5},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "active_users", "total_active_users": 100000, "new_users_per_minute": 60},
    "run": {"horizon_s": 599}})");
  auto r = models::run_scenario(s, 7);
  EXPECT_EQ(r.overall.released, 600u);
}

TEST(ActiveUsers, ARenewedSessionEndsTheSessionDurationAfterTheLastRequest) {
  auto end_of = [](const std::string& release) {
    trace_file t("0,all\n");
    auto s = by_hand(t, release);
    sim::simulator sim;
    models::active_gate gate(s.release.active, sim, 1, 0);
    return static_cast<double>(gate.session_end(0)) * 1e-9;
  };
  const std::string base = R"("total_active_users": 1, "new_users_per_minute": 1,
      "session_duration_min": 1, )";
  // Three requests 10 s apart: renewed to 20 + 60 s; revoked on the last request: 20 s.
  const std::string visit = R"("visit": {"requests": {"dist": "deterministic", "value": 3},
      "think_s": {"dist": "deterministic", "value": 10}})";
  EXPECT_DOUBLE_EQ(end_of(base + visit), 80.0);
  EXPECT_DOUBLE_EQ(end_of(base + visit + R"(, "revoke_on_exit": true)"), 20.0);
  // Without renewal the session is 60 s whatever the visit, unless revoked first.
  EXPECT_DOUBLE_EQ(end_of(base + visit + R"(, "disable_session_renewal": true)"), 60.0);
  EXPECT_DOUBLE_EQ(
      end_of(base + visit + R"(, "disable_session_renewal": true, "revoke_on_exit": true)"), 20.0);
  // A think time longer than the session: it lapses 60 s after the first request.
  const std::string slow = R"("visit": {"requests": {"dist": "deterministic", "value": 3},
      "think_s": {"dist": "deterministic", "value": 70}})";
  EXPECT_DOUBLE_EQ(end_of(base + slow + R"(, "revoke_on_exit": true)"), 60.0);
  // Without renewal the visit (0, 40, 80 s) outlasts the session: the revoke never comes.
  const std::string long_visit = R"("visit": {"requests": {"dist": "deterministic", "value": 3},
      "think_s": {"dist": "deterministic", "value": 40}})";
  EXPECT_DOUBLE_EQ(
      end_of(base + long_visit + R"(, "disable_session_renewal": true, "revoke_on_exit": true)"),
      60.0);
}

TEST(ActiveUsers, ASessionPastTheClockEndsAtItsEndInsteadOfWrapping) {
  // Valid keys (a century's session, 99 years between requests) whose sums pass the clock's
  // end (about 292 years): the end saturates there, never a negative time (the run then stops
  // with exit 2 at the clock's end).
  trace_file t("0,all\n");
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const std::string century = R"("total_active_users": 1, "new_users_per_minute": 1,
      "session_duration_min": 52560000, )";
  const std::string visit = R"("visit": {"requests": {"dist": "deterministic", "value": 1000},
      "think_s": {"dist": "deterministic", "value": 3122064000}})";
  sim::simulator sim;
  auto renewed = by_hand(t, century + visit);
  EXPECT_EQ(models::active_gate(renewed.release.active, sim, 1, 0).session_end(0), top);
  auto fixed = by_hand(t, century + visit + R"(, "disable_session_renewal": true)");
  const std::int64_t late = sim::sim_time::from_seconds(250.0 * 365 * 86400).ns();
  EXPECT_EQ(models::active_gate(fixed.release.active, sim, 1, 0).session_end(late), top);
  // From t = 0 the same session ends a century later, exactly.
  EXPECT_EQ(models::active_gate(fixed.release.active, sim, 1, 0).session_end(0),
            sim::sim_time::from_seconds(52560000.0 * 60).ns());
}

TEST(ActiveUsers, QueueAllAndThePrequeueHoldEveryoneUntilTheirEnd) {
  // Room for everyone, but queue_all until 30 s: arrivals at 0 and 10 s wait 30 and 20 s,
  // the one at 40 s goes straight in. An event starting at 30 s does the same.
  trace_file t("0,all\n10,all\n40,all\n");
  const std::string common = R"("total_active_users": 10, "new_users_per_minute": 10, )";
  for (const std::string hold : {R"("queue_all_until_s": 30)", R"("event_start_s": 30)"}) {
    auto r = models::run_scenario(by_hand(t, common + hold), 1);
    ASSERT_EQ(r.overall.released, 3u) << hold;
    EXPECT_NEAR(r.overall.wait_s.mean(), 50.0 / 3.0, 1e-9) << hold;
    EXPECT_NEAR(r.overall.wait_s.min(), 0.0, 1e-9) << hold;
  }
}

TEST(ActiveUsers, PassthroughIgnoresTheLimitsAndRejectRefusesEveryone) {
  trace_file t("0,all\n0.5,all\n1,all\n");
  const std::string common = R"("total_active_users": 1, "new_users_per_minute": 1, )";
  auto pass = models::run_scenario(by_hand(t, common + R"("queueing_method": "passthrough")"), 1);
  EXPECT_EQ(pass.overall.released, 3u);
  EXPECT_NEAR(pass.overall.wait_s.max(), 0.0, 1e-9);
  auto reject = models::run_scenario(by_hand(t, common + R"("queueing_method": "reject")"), 1);
  EXPECT_EQ(reject.overall.released, 0u);
  EXPECT_EQ(reject.overall.refused, 3u);
  // What the refused_share SLA metric reads: all three (it read 0 when the gate's refusals
  // were left out of the counted ones).
  EXPECT_EQ(reject.overall.refused_counted, 3u);
  EXPECT_DOUBLE_EQ(models::metric_value(reject, -1, models::sla_metric::refused_share), 1.0);
}

TEST(ActiveUsers, TheCookieMinuteOrdersUsersAndTiesWithinAMinuteAreRandom) {
  // With time_unit "min" (the cookie's group is the minute of entry), users of one minute tie
  // and leave in token order; a user of an earlier minute always goes first.
  trace_file t("0,a\n59,b\n61,c\n");
  const std::string classes =
      R"([{"name": "a", "share": 0.4}, {"name": "b", "share": 0.3}, {"name": "c", "share": 0.3}])";
  // Everyone waits for the prequeue's end at 120 s; one active user, 1-minute fixed sessions.
  const std::string release = R"("total_active_users": 1, "new_users_per_minute": 100,
      "session_duration_min": 1, "disable_session_renewal": true, "event_start_s": 120)";
  auto s = by_hand(t, release, classes, "min");
  int b_before_a = 0;
  const int runs = 400;
  for (int rep = 0; rep < runs; ++rep) {
    auto r = models::run_scenario(s, 11, static_cast<std::uint64_t>(rep));
    // c (minute 1) always goes last: let in at 240 s, after 179 s.
    EXPECT_NEAR(r.by_class[2].wait_s.max(), 179.0, 1e-9);
    b_before_a += r.by_class[1].wait_s.max() < 61.5 ? 1 : 0;  // b let in at 120 s
  }
  // a and b tie: each first with probability 1/2 (binomial, 4.5 standard deviations).
  EXPECT_NEAR(b_before_a / static_cast<double>(runs), 0.5, 4.5 * std::sqrt(0.25 / runs));
}

namespace {

// The users: `first` at 0 s, three `early` at 1, 2, 3 s, all before the event at 10 s, and
// `late` at 11 s. One active user, sessions of exactly 60 s: let in at 10, 70, 130, 190, 250 s.
std::vector<int> positions_of(const std::string& method, bool shuffle, int runs, std::size_t cls,
                              double arrived_s) {
  trace_file t("0,first\n1,early\n2,early\n3,early\n11,late\n");
  const std::string classes =
      R"([{"name": "first", "share": 0.2}, {"name": "early", "share": 0.6},
          {"name": "late", "share": 0.2}])";
  auto s = by_hand(t,
                   R"("total_active_users": 1, "new_users_per_minute": 100,
      "session_duration_min": 1, "disable_session_renewal": true, "event_start_s": 10,
      "queueing_method": ")" +
                       method + R"(", "shuffle_at_event_start": )" + (shuffle ? "true" : "false"),
                   classes);
  std::vector<int> at(5, 0);  // how often the user was let in k-th
  for (int rep = 0; rep < runs; ++rep) {
    auto r = models::run_scenario(s, 3, static_cast<std::uint64_t>(rep));
    const double let_in = r.by_class[cls].wait_s.max() + arrived_s;
    const int k = static_cast<int>(std::lround((let_in - 10.0) / 60.0));
    EXPECT_NEAR(let_in, 10.0 + 60.0 * k, 1e-9);
    ++at[static_cast<std::size_t>(k)];
  }
  return at;
}

}  // namespace

TEST(ActiveUsers, RandomQueueingDrawsUniformlyAmongEveryoneWaiting) {
  // `late` arrives at 11 s, after the first draw (among the four prequeued users), and then
  // is in every draw among those left: 1/4, 3/4 x 1/3, ...: positions 2..5 with 1/4 each.
  const int runs = 2000;
  auto late = positions_of("random", false, runs, 2, 11.0);
  EXPECT_EQ(late[0], 0);
  for (std::size_t k = 1; k < 5; ++k)
    EXPECT_NEAR(late[k] / static_cast<double>(runs), 0.25, 4.5 * std::sqrt(0.25 * 0.75 / runs))
        << "position " << k;
  // `first` is in the first draw, among four: let in first with probability 1/4.
  auto first = positions_of("random", false, runs, 0, 0.0);
  EXPECT_NEAR(first[0] / static_cast<double>(runs), 0.25, 4.5 * std::sqrt(0.25 * 0.75 / runs));
}

TEST(ActiveUsers, ThePrequeueIsShuffledAtTheEventStartAndFifoAfterwards) {
  const int runs = 2000;
  // Without the shuffle, FIFO: `first` goes first and `late` last, every time.
  auto first_fifo = positions_of("fifo", false, 50, 0, 0.0);
  EXPECT_EQ(first_fifo[0], 50);
  // With it, `first` is anywhere among the four prequeued users with probability 1/4 each;
  // `late` (after the start) still goes last.
  auto first = positions_of("fifo", true, runs, 0, 0.0);
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_NEAR(first[k] / static_cast<double>(runs), 0.25, 4.5 * std::sqrt(0.25 * 0.75 / runs))
        << "position " << k;
  EXPECT_EQ(first[4], 0);
  auto late = positions_of("fifo", true, 50, 2, 11.0);
  EXPECT_EQ(late[4], 50);
}

TEST(ActiveUsers, WithoutRenewalAndWithRevokeItIsMMcAndMatchesErlangC) {
  // Two requests a visit, an exponential think time of mean 1 s between them and the session
  // revoked on the second: each user is active for an Exp(1) time (the 1000-minute session
  // never binds). lambda 3.5, 4 active users, a rate cap far above the arrival rate: M/M/4.
  const double lambda = 3.5;
  const int c = 4;
  auto s = scenario_from(R"({"name": "mmc-active", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 3.5},
    "queue": {"policy": "fifo", "time_unit": "us"},
    "release": {"mode": "active_users", "total_active_users": 4,
                "new_users_per_minute": 1000000, "session_duration_min": 1000,
                "disable_session_renewal": true, "revoke_on_exit": true,
                "visit": {"requests": {"dist": "deterministic", "value": 2},
                          "think_s": {"dist": "exponential", "mean": 1}}},
    "run": {"horizon_s": 60000, "sample_interval_s": 1000}})");
  double term = 1.0, sum = 0.0;
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= lambda / (k + 1);
  }
  const double last = term * c / (c - lambda);
  const double pc = last / (sum + last), wq = pc / (c - lambda);
  std::vector<double> waits, waited;
  for (int rep = 0; rep < 30; ++rep) {
    auto r = models::run_scenario(s, s.seed, static_cast<std::uint64_t>(rep));
    waits.push_back(r.overall.wait_s.mean());
    waited.push_back(1.0 - static_cast<double>(r.overall.wait_ns.bucket(0)) /
                               static_cast<double>(r.overall.wait_ns.count()));
  }
  auto w = sim::mean_interval(waits, 0.999);
  auto p = sim::mean_interval(waited, 0.999);
  EXPECT_TRUE(w.contains(wq)) << w.mean << " +- " << w.half_width << " vs " << wq;
  EXPECT_TRUE(p.contains(pc)) << p.mean << " +- " << p.half_width << " vs " << pc;
  EXPECT_LT(w.half_width, 0.05 * wq);
}

TEST(ActiveUsers, BadKeysAreNamed) {
  auto fails = [](const std::string& release, const std::string& pointer) {
    try {
      scenario_from(R"({"name": "bad", "classes": [{"name": "all"}],
        "arrivals": {"process": "poisson", "rate_per_s": 1},
        "release": {"mode": "active_users", )" +
                    release + "}}");
    } catch (const sim::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(pointer), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << release;
  };
  fails(R"("new_users_per_minute": 5)", "/release/total_active_users");
  fails(R"("total_active_users": 5, "new_users_per_minute": 5, "queueing_method": "lifo")",
        "/release/queueing_method");
  fails(R"("total_active_users": 5, "new_users_per_minute": 5, "shuffle_at_event_start": true)",
        "/release/shuffle_at_event_start");
  fails(R"("total_active_users": 5, "new_users_per_minute": 5, "slots": 3)", "/release/slots");
}
