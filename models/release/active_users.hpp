#pragma once
// Active-user admission, the model of Cloudflare Waiting Room (docs/products.md): a user is
// let in while fewer than total_active_users sessions are active and fewer than
// new_users_per_minute users came in within the rate window; a session stays active until
// its user has been idle for the session duration (each request renews it) or, with renewal
// disabled, for the session duration from admission. Nobody is let in while queue_all is on
// or the event's prequeue has not ended. The room asks this gate at each arrival and, when a
// session ends or the window or hold allows more, how many waiting users to let in.
#include <cstdint>
#include <deque>

#include "models/spec/release_spec.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class active_gate {
 public:
  enum class verdict { admit, queue, refuse };

  active_gate(const active_users_spec& spec, sim::simulator& sim, std::uint64_t seed,
              std::uint64_t replication);

  // Schedules the end of the hold (queue_all or prequeue), when there is one.
  void start();
  // An arrival: let in at once (nobody waiting and room), queued, or refused (reject).
  verdict arrive(bool nobody_waiting, std::int64_t now);
  // How many waiting users may be let in now. When waiting users are held back by the rate
  // window (or the hold), schedules the check that will let the next one in.
  std::uint64_t room(std::int64_t now, bool waiting);
  // A user was let in: counts it in the window and schedules the end of its session.
  void admitted(std::int64_t now);
  void session_ended() { --active_; }
  void checked() { check_pending_ = false; }

  std::uint32_t active() const { return active_; }

  // The end of a session that starts at `now` (exposed for tests): the visit's requests with
  // think times between them renew it; see docs/products.md for each assumption.
  std::int64_t session_end(std::int64_t now);

 private:
  bool held(std::int64_t now) const { return now < hold_ns_; }
  // Admissions still counted in the rate window at `now`, and when the next one stops counting.
  std::uint64_t in_window(std::int64_t now);
  std::int64_t window_frees_at(std::int64_t now) const;
  void check_at(std::int64_t t);

  const active_users_spec& spec_;
  sim::simulator& sim_;
  sim::rng visit_rng_;
  std::int64_t hold_ns_;
  std::int64_t session_ns_;
  std::uint32_t active_ = 0;
  // fixed window: the minute counted and its admissions; sliding: the admission times of the
  // last 60 s (at most new_users_per_minute of them).
  std::int64_t window_index_ = 0;
  std::uint64_t window_count_ = 0;
  std::deque<std::int64_t> recent_;
  bool check_pending_ = false;
};

}  // namespace waitroom::models
