#include "models/release/release_modes.hpp"

#include <algorithm>

namespace waitroom::models {

release_modes::release_modes(const release_spec& spec, sim::simulator& sim, std::uint64_t seed,
                             std::uint64_t replication)
    : spec_(spec),
      sim_(sim),
      session_rng_(seed, replication, "service"),
      free_slots_(spec.mode == release_mode::concurrency ? spec.slots : 0) {
  if (spec.mode == release_mode::active_users) gate_.emplace(spec.active, sim, seed, replication);
  if (spec.mode == release_mode::serving_counter) {
    max_size_inlet_ = spec.counter.inlet == inlet_kind::max_size;
    counter_.emplace(max_size_inlet_ ? spec.counter.max_size : 0);
  }
  ticks_ = spec.mode == release_mode::tick || (counter_ && !max_size_inlet_);
}

void release_modes::start() {
  if (ticks_)
    sim_.schedule(
        spec_.first_tick_s ? sim::sim_time::from_seconds(*spec_.first_tick_s) : spec_.interval,
        p_release, k_tick);
  if (gate_) gate_->start();
}

std::uint64_t release_modes::tick_batch(std::int64_t now, rate_controller& rates,
                                        std::uint64_t reclaimed) {
  std::uint64_t batch = rates.tick_batch() + reclaimed;
  // The periodic inlet moves the counter; it serves the waiting users it passes.
  if (counter_)
    batch = counter_->advance(periodic_increment(spec_.counter, now, rates) + reclaimed);
  return batch;
}

void release_modes::start_session() {
  const double d = std::max(0.0, spec_.session.sample(session_rng_));
  sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_release, k_session_end);
}

}  // namespace waitroom::models
