#pragma once
// When the room releases and how many, by release mode (docs/scenarios.md, /release/mode):
// - tick: every interval the controller's batch, plus releases taken back from no-shows;
// - concurrency: an arrival takes a free slot at once; a session's end releases the next
//   waiting user into its slot, or frees the slot when nobody waits;
// - active_users: the gate (active_users.hpp) lets arrivals in at once, queues or refuses
//   them, and says how many waiting users may go in when sessions end or the window allows;
// - serving_counter: the counter (serving_counter.hpp) serves the waiting users it passes,
//   moved by a periodic inlet at each tick or, with the max-size inlet, by each exit.
// The room releases what this says through the releaser; this class owns the slots, the
// gate, the counter, the tick's schedule and the sessions' stream.
#include <cstdint>
#include <optional>

#include "models/events.hpp"
#include "models/release/active_users.hpp"
#include "models/release/controller.hpp"
#include "models/release/serving_counter.hpp"
#include "models/spec/release_spec.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class release_modes {
 public:
  release_modes(const release_spec& spec, sim::simulator& sim, std::uint64_t seed,
                std::uint64_t replication);

  // Schedules the first tick (tick mode, periodic inlet) or the gate's first check.
  void start();
  // Whether releases come at ticks (the ETA estimators' rounds; else the samples are).
  bool ticks() const { return ticks_; }
  // k_tick: how many to release now, with `reclaimed` releases taken back from no-shows
  // (the controller closes its round either way).
  std::uint64_t tick_batch(std::int64_t now, rate_controller& rates, std::uint64_t reclaimed);
  // After the tick's release: the next tick.
  void next_tick() { sim_.schedule(sim_.now() + spec_.interval, p_release, k_tick); }

  // An arrival's way in: refused (the gate's reject method), served at once (a free
  // concurrency slot, now taken), queued and released at once (let in by the gate: the
  // room then calls admitted()), or queued.
  enum class way { refuse, direct, let_in, queue };
  way arrive(bool nobody_waiting, std::int64_t now) {
    if (gate_) {
      const auto v = gate_->arrive(nobody_waiting, now);
      if (v == active_gate::verdict::refuse) return way::refuse;
      if (v == active_gate::verdict::admit) return way::let_in;
    }
    if (free_slots_ > 0) {
      --free_slots_;
      return way::direct;
    }
    return way::queue;
  }
  // A user entered the queue (its serial is its queue number): how many waiting users the
  // serving counter now serves (it may have passed the number already).
  std::uint64_t entered(std::uint32_t user) { return counter_ ? counter_->entered(user) : 0; }
  // A waiting user gave up: the counter will pass its number.
  void gave_up(std::uint32_t user) {
    if (counter_) counter_->gave_up(user);
  }

  // Concurrency: a session starts now (a user took a slot); its end is a k_session_end.
  void start_session();
  // Concurrency: a session ended and nobody took its slot.
  void free_slot() { ++free_slots_; }

  // Active users: how many waiting users may go in now (and, while some are held back,
  // the check that lets the next in is scheduled).
  std::uint64_t gate_room(std::int64_t now) { return gate_->room(now, true); }
  // Active users: n users went in now (each counted in the window, each session's end
  // scheduled).
  void admitted(std::int64_t now, std::uint64_t n = 1) {
    for (std::uint64_t i = 0; i < n; ++i) gate_->admitted(now);
  }
  void session_ended() { gate_->session_ended(); }  // k_active_end
  void checked() { gate_->checked(); }              // k_admit_check

  // Max-size inlet: the counter moves up by one per exit (a response, or a release taken
  // back); returns how many waiting users it now serves.
  bool counts_exits() const { return max_size_inlet_; }
  std::uint64_t exits(std::uint64_t n) { return counter_->advance(n); }

 private:
  const release_spec& spec_;
  sim::simulator& sim_;
  sim::rng session_rng_;
  std::uint32_t free_slots_ = 0;
  std::optional<active_gate> gate_;
  std::optional<serving_counter> counter_;
  bool max_size_inlet_ = false;
  bool ticks_;
};

}  // namespace waitroom::models
