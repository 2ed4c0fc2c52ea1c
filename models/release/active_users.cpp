#include "models/release/active_users.hpp"

#include <algorithm>
#include <cmath>

#include "models/events.hpp"

namespace waitroom::models {

namespace {
constexpr std::int64_t minute_ns = 60'000'000'000;
}

active_gate::active_gate(const active_users_spec& spec, sim::simulator& sim, std::uint64_t seed,
                         std::uint64_t replication)
    : spec_(spec),
      sim_(sim),
      visit_rng_(seed, replication, "visits"),
      hold_ns_(sim::sim_time::from_seconds(spec.hold_until_s()).ns()),
      session_ns_(sim::sim_time::from_seconds(spec.session_duration_s).ns()) {}

void active_gate::start() {
  if (hold_ns_ > 0) check_at(hold_ns_);
}

active_gate::verdict active_gate::arrive(bool nobody_waiting, std::int64_t now) {
  switch (spec_.method) {
    case queueing_method::reject:
      return verdict::refuse;
    case queueing_method::passthrough:  // the limits are not enforced (they still count)
      return held(now) ? verdict::queue : verdict::admit;
    case queueing_method::fifo:
    case queueing_method::random:
      break;
  }
  // With users waiting, a newcomer queues behind them even if a slot is free this instant:
  // the room lets the waiting in first.
  // (room() also schedules the window's next turn when the rate holds a newcomer back.)
  const std::uint64_t free_now = room(now, true);
  return nobody_waiting && free_now > 0 ? verdict::admit : verdict::queue;
}

std::uint64_t active_gate::in_window(std::int64_t now) {
  if (spec_.window == rate_window::fixed) {
    const std::int64_t w = now / minute_ns;
    if (w != window_index_) {
      window_index_ = w;
      window_count_ = 0;
    }
    return window_count_;
  }
  while (!recent_.empty() && recent_.front() <= now - minute_ns) recent_.pop_front();
  return recent_.size();
}

std::int64_t active_gate::window_frees_at(std::int64_t now) const {
  if (spec_.window == rate_window::fixed) return (now / minute_ns + 1) * minute_ns;
  return recent_.front() + minute_ns;
}

void active_gate::check_at(std::int64_t t) {
  if (check_pending_) return;
  check_pending_ = true;
  sim_.schedule(sim::sim_time::from_ns(t), p_release, k_admit_check);
}

std::uint64_t active_gate::room(std::int64_t now, bool waiting) {
  if (held(now)) return 0;  // the hold's end is scheduled by start()
  if (spec_.method == queueing_method::passthrough) return waiting ? ~std::uint64_t{0} : 1;
  const std::uint64_t cap = spec_.total_active_users;
  const std::uint64_t by_sessions = active_ < cap ? cap - active_ : 0;
  const std::uint64_t rate = spec_.new_users_per_minute;
  const std::uint64_t used = in_window(now);
  const std::uint64_t by_rate = used < rate ? rate - used : 0;
  // Held back by the window alone: a session ending cannot help, the window's turn will.
  if (waiting && by_rate == 0 && by_sessions > 0) check_at(window_frees_at(now));
  return std::min(by_sessions, by_rate);
}

void active_gate::admitted(std::int64_t now) {
  ++active_;
  in_window(now);
  if (spec_.window == rate_window::fixed)
    ++window_count_;
  else
    recent_.push_back(now);
  sim_.schedule(sim::sim_time::from_ns(session_end(now)), p_release, k_active_end);
}

std::int64_t active_gate::session_end(std::int64_t now) {
  const double k = std::round(spec_.requests.sample(visit_rng_));
  const std::int64_t requests = k < 1 ? 1 : k > 1e6 ? 1'000'000 : static_cast<std::int64_t>(k);
  std::int64_t last = now;  // the time of the visit's latest request
  bool finished = true;     // every request made while the session was still active
  for (std::int64_t i = 1; i < requests; ++i) {
    const std::int64_t gap =
        sim::sim_time::from_seconds(std::max(0.0, spec_.think_s.sample(visit_rng_))).ns();
    // Compared and added without overflow: a century's sessions and think times are valid
    // input, and a time past the clock saturates there (the run then stops with exit 2).
    if (spec_.disable_session_renewal ? gap > session_ns_ - (last - now) : gap > session_ns_) {
      finished = false;  // the session ran out first: the rest of the visit is not modelled
      break;
    }
    last = sim::sim_time::add_ns(last, gap);
  }
  if (spec_.disable_session_renewal)
    return spec_.revoke_on_exit && finished ? last : sim::sim_time::add_ns(now, session_ns_);
  return spec_.revoke_on_exit && finished ? last : sim::sim_time::add_ns(last, session_ns_);
}

}  // namespace waitroom::models
