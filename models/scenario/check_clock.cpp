// Products of durations against the clock (issue 12): each value is inside its range (at most
// 100 years), but without a horizon a run lasts until its users are released, and the release
// rate times the users to release can pass the clock's end (int64 nanoseconds, about 292
// years). Where that is certain at load it is refused here, naming the key; anything else that
// reaches the end (random counts or durations) stops the run with exit 2 when it happens
// (sim::simulator's beyond_clock).
#include "models/scenario/sections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace waitroom::models::section {

namespace {

// The clock's end in seconds: an event due at or after it saturates there (sim_time).
constexpr double clock_end_s = 9223372036854775807.0 / 1e9;

// Users certain to wait for a release: the backlog and a trace's records, since a Poisson
// count is random; none when some could leave otherwise (patience; the stock refuses the
// rest at the door, so at most that many enter; a gate that refuses or lets everyone in).
std::uint64_t users_to_release(const scenario& s) {
  std::uint64_t n = s.arrivals.backlog_users;
  for (const auto& c : s.classes)
    if (c.patience_s && c.share > 0.0) n = 0;  // backlog users draw their class by share
  for (const auto& r : s.arrivals.trace)
    if (!s.classes[r.user_class].patience_s) ++n;
  if (s.admission) n = std::min<std::uint64_t>(n, s.admission->stock);
  if (s.release.mode == release_mode::active_users &&
      (s.release.active.method == queueing_method::reject ||
       s.release.active.method == queueing_method::passthrough))
    n = 0;
  return n;
}

// Rounds of at most `per_round` releases, `period_s` apart from `first_s`: the round that
// releases the last of `users`, and when it is due.
struct last_round {
  double round = 0;
  double at_s = 0;
  bool beyond = false;  // at or past the clock's end
};

last_round last_of(std::uint64_t users, std::uint64_t per_round, double first_s, double period_s) {
  last_round r;
  if (users == 0 || per_round == 0 || period_s <= 0) return r;
  r.round = std::ceil(static_cast<double>(users) / static_cast<double>(per_round));
  r.at_s = first_s + (r.round - 1) * period_s;
  r.beyond = r.at_s >= clock_end_s;
  return r;
}

// The longest period that keeps round `round` (from `first_s`) inside the clock.
double longest_period(const last_round& r, double first_s) {
  return (clock_end_s - first_s) / (r.round - 1);  // beyond implies round >= 2
}

std::string years(double s) {
  return fmt::format("{:.3g} years", s / (365.0 * 86400.0));
}

constexpr std::string_view within =
    "within the clock's range (about 292 years of simulated time, int64 nanoseconds)";
constexpr std::string_view or_horizon = ", or a horizon (/run/horizon_s)";

// The shortest a drawn duration can be (0 where the law reaches 0).
double least(const sim::distribution& d) {
  switch (d.kind) {
    case sim::dist_kind::deterministic:
    case sim::dist_kind::uniform:
      return std::max(0.0, d.a);
    case sim::dist_kind::empirical:
      return d.samples.empty() ? 0.0 : *std::min_element(d.samples.begin(), d.samples.end());
    default:
      return 0.0;
  }
}

}  // namespace

void refuse_beyond_clock(const scenario& s, const std::string& file) {
  if (s.run.horizon_s || s.run.max_events > 0) return;  // either may stop the run first
  const std::uint64_t users = users_to_release(s);
  if (users == 0) return;
  const auto& r = s.release;
  const std::string at = file + ": /release/";
  // Releases taken back from no-shows are handed out again on top of the batch.
  const bool reclaims = s.backend && s.backend->no_show_probability > 0;
  const double interval_s = r.interval.seconds();
  switch (r.mode) {
    case release_mode::tick: {
      if (r.controller.kind != controller_kind::fixed || reclaims) return;
      const double first = r.first_tick_s.value_or(0.0);
      const auto last = last_of(users, r.batch, r.first_tick_s.value_or(interval_s), interval_s);
      if (last.beyond)
        throw sim::input_error(
            at + "interval_ms",
            fmt::format(
                "an interval that releases the run's {} waiting users ({} a tick) {}: "
                "less than {:.6g} ms{}",
                users, r.batch, within,
                (r.first_tick_s ? longest_period(last, first) : clock_end_s / (last.round)) * 1e3,
                or_horizon),
            fmt::format("{:.6g} ms: tick {:.0f} would be due after {}", interval_s * 1e3,
                        last.round, years(last.at_s)));
      break;
    }
    case release_mode::serving_counter: {
      const auto& c = r.counter;
      // After end_s the counter stops: a run that needs it longer stalls (exit 2 then).
      if (c.inlet != inlet_kind::periodic || c.end_s || reclaims) return;
      // The inlet ticks every interval from t = interval and moves from start_s on.
      const double first = std::max(1.0, std::ceil(c.start_s / interval_s)) * interval_s;
      const auto last = last_of(users, c.increment, first, interval_s);
      if (last.beyond)
        throw sim::input_error(
            at + "inlet_interval_s",
            fmt::format("an inlet interval that serves the run's {} waiting users ({} an "
                        "inlet) {}: less than {:.6g} s{}",
                        users, c.increment, within, (clock_end_s - c.start_s) / last.round,
                        or_horizon),
            fmt::format("{:.6g} s: inlet {:.0f} would be due after {}", interval_s, last.round,
                        years(last.at_s)));
      break;
    }
    case release_mode::concurrency: {
      // A slot starts its next session when the last one ends: one release a session each.
      const double shortest = least(r.session);
      const auto last = last_of(users, r.slots, 0.0, shortest);
      if (last.beyond)
        throw sim::input_error(
            at + "session_s",
            fmt::format("sessions that release the run's {} waiting users ({} slots) {}: a "
                        "shortest session under {:.6g} s{}",
                        users, r.slots, within, longest_period(last, 0.0), or_horizon),
            fmt::format("sessions of at least {:.6g} s: round {:.0f} of sessions would start "
                        "after {}",
                        shortest, last.round, years(last.at_s)));
      break;
    }
    case release_mode::active_users: {
      const auto& a = r.active;
      // At most new_users_per_minute admissions in a minute (either window).
      const auto by_rate = last_of(users, a.new_users_per_minute, 0.0, 60.0);
      if (by_rate.beyond) {
        const double minutes = std::floor(clock_end_s / 60.0);  // the minutes that fit
        throw sim::input_error(
            at + "new_users_per_minute",
            fmt::format("a rate that admits the run's {} waiting users {}: at least {:.0f} "
                        "users a minute{}",
                        users, within, std::ceil(static_cast<double>(users) / minutes), or_horizon),
            fmt::format("{}: minute {:.0f} would be needed, after {}", a.new_users_per_minute,
                        by_rate.round, years(by_rate.at_s)));
      }
      // Without revoke_on_exit a session holds its place for the session duration at least.
      if (a.revoke_on_exit) return;
      const auto by_sessions = last_of(users, a.total_active_users, 0.0, a.session_duration_s);
      if (by_sessions.beyond)
        throw sim::input_error(
            at + "session_duration_min",
            fmt::format("sessions that admit the run's {} waiting users ({} total_active_users) "
                        "{}: under {:.6g} min{}",
                        users, a.total_active_users, within,
                        longest_period(by_sessions, 0.0) / 60.0, or_horizon),
            fmt::format("{:.6g} min: round {:.0f} of sessions would start after {}",
                        a.session_duration_s / 60.0, by_sessions.round, years(by_sessions.at_s)));
      break;
    }
  }
}

}  // namespace waitroom::models::section
