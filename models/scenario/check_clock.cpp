// Products of durations against the clock: each value is inside its range (at most
// 100 years), but without a horizon a run lasts until its users are released, and the release
// rate times the users to release can pass the clock's end (int64 nanoseconds, about 292
// years). Where that is certain at load it is refused here, naming the key; anything else that
// reaches the end (random counts or durations) stops the run with exit 2 when it happens
// (sim::simulator's beyond_clock). Also here: durations too short for the clock's nanoseconds,
// aging chains longer than the clock, and a backend's windows over a horizon.
#include "models/scenario/names.hpp"
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

// The most one tick can release: the batch, or as far as a controller can take it (tiered:
// towards the batch times its largest factor; window: up to its ceiling; either no lower than
// its floor). The tick rounds the rate to nearest, never above its ceil.
double most_per_tick(const release_spec& r) {
  const auto& c = r.controller;
  const double base = static_cast<double>(r.batch);
  double most = base;
  if (c.kind == controller_kind::tiered)
    for (const double f : c.factors) most = std::max(most, base * f);
  if (c.kind == controller_kind::window)
    most = std::max(most, c.ceiling > 0 ? c.ceiling : 2.0 * base);
  if (c.kind != controller_kind::fixed) most = std::max(most, c.floor);
  return std::ceil(most);
}

// Aging (read_queue.cpp): a user who enters list i climbs one list every max_wait_s of the
// list it is in, up to the first list without aging; the climb from the bottom of a chain is
// the chain's sum, which must end on the clock (each step alone is at most 100 years, three
// of them are not). Refused naming the list where the sum passes the clock's end.
void refuse_aging_beyond_clock(const scenario& s, const std::string& file) {
  double climb_s = 0;
  std::size_t top = 0;  // the list the chain climbs to
  for (std::size_t i = 0; i < s.lists.size(); ++i) {
    if (!s.lists[i].max_wait_s) {
      climb_s = 0;
      top = i;
      continue;
    }
    const double before = climb_s;
    climb_s += *s.lists[i].max_wait_s;
    if (climb_s < clock_end_s) continue;
    throw sim::input_error(
        fmt::format("{}: /queue/lists/{}/max_wait_s", file, i),
        fmt::format("aging steps that take a user from list {} ('{}') to list {} ('{}') {}: "
                    "the steps from list {} up sum to {:.6g} s, so at most {:.6g} s here{}",
                    i, s.lists[i].name, top, s.lists[top].name, within, top + 1, before,
                    clock_end_s - before, or_horizon),
        fmt::format("{:.6g} s: a user entering list {} at t = 0 would reach list {} after {}",
                    *s.lists[i].max_wait_s, i, top, years(climb_s)));
  }
}

// A backend keeps a record of every window_s of the run (backend.cpp), idle ones too: a run
// that lasts at least `end_s` keeps end_s / window_s of them, at most as many as the
// queue-length samples a run may keep (read_run.cpp). A run without a horizon whose releases
// are decades apart would otherwise fill memory with empty windows.
void refuse_backend_windows(const scenario& s, const std::string& file, double end_s,
                            const char* until) {
  if (!s.backend || end_s / s.backend->window_s <= max_samples) return;
  throw sim::input_error(
      file + ": /backend/window_s",
      fmt::format("at most {:.0f} response-time windows until {} ({:.6g} s): windows of at least "
                  "{:.6g} s",
                  max_samples, until, end_s, end_s / max_samples),
      fmt::format("{:.6g} s: {:.3g} windows", s.backend->window_s, end_s / s.backend->window_s));
}

}  // namespace

void refuse_below_clock_step(const object_reader& r, const std::string& key, double seconds) {
  if (!(seconds > 0) || sim::sim_time::from_seconds(seconds).ns() > 0) return;
  r.fail(key, "a duration of at least 1 ns (the clock counts whole nanoseconds)",
         fmt::format("{}: {:.3g} ns, 0 on the clock", describe(r.raw(key)), seconds * 1e9));
}

void refuse_beyond_clock(const scenario& s, const std::string& file) {
  if (s.run.horizon_s) refuse_backend_windows(s, file, *s.run.horizon_s, "the horizon");
  if (s.run.horizon_s || s.run.max_events > 0) return;  // either may stop the run first
  refuse_aging_beyond_clock(s, file);
  const std::uint64_t users = users_to_release(s);
  if (users == 0) return;
  const auto& r = s.release;
  const std::string at = file + ": /release/";
  // Releases taken back from no-shows are handed out again on top of the batch.
  const bool reclaims = s.backend && s.backend->no_show_probability > 0;
  const double interval_s = r.interval.seconds();
  double end_s = 0;  // when the last certain round is due: the run lasts at least that long
  switch (r.mode) {
    case release_mode::tick: {
      if (reclaims) return;
      const double first = r.first_tick_s.value_or(0.0);
      const double per_tick = most_per_tick(r);
      const auto last = last_of(users, static_cast<std::uint64_t>(per_tick),
                                r.first_tick_s.value_or(interval_s), interval_s);
      const std::string rate = r.controller.kind == controller_kind::fixed
                                   ? fmt::format("{} a tick", r.batch)
                                   : fmt::format("at most {:.0f} a tick under the {} controller",
                                                 per_tick, name_of(r.controller.kind));
      if (last.beyond)
        throw sim::input_error(
            at + "interval_ms",
            fmt::format(
                "an interval that releases the run's {} waiting users ({}) {}: "
                "less than {:.6g} ms{}",
                users, rate, within,
                (r.first_tick_s ? longest_period(last, first) : clock_end_s / (last.round)) * 1e3,
                or_horizon),
            fmt::format("{:.6g} ms: tick {:.0f} would be due after {}", interval_s * 1e3,
                        last.round, years(last.at_s)));
      end_s = last.at_s;
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
      end_s = last.at_s;
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
      end_s = last.at_s;
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
      end_s = by_rate.at_s;
      // Without revoke_on_exit a session holds its place for the session duration at least.
      if (a.revoke_on_exit) break;
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
      end_s = std::max(by_rate.at_s, by_sessions.at_s);
      break;
    }
  }
  refuse_backend_windows(s, file, end_s, "the run's last certain release");
}

}  // namespace waitroom::models::section
