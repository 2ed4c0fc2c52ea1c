#pragma once
// Abandonment: a waiting user of a class with a patience gives up when it runs out, unless
// released first (one k_abandon event per such user, dropped by the room if it has left);
// of those who give up, a share pays later from "orders to pay" (the flash-sale article, see
// docs/references.md). Who pays later is a hash of the user's serial, not a draw, so it
// takes nothing from any stream.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/events.hpp"
#include "models/spec/scenario.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class abandonment {
 public:
  abandonment(const std::vector<user_class>& classes, sim::simulator& sim, std::uint64_t seed,
              std::uint64_t replication)
      : classes_(classes),
        sim_(sim),
        patience_rng_(seed, replication, "patience"),
        pay_later_salt_(sim::rng(seed, replication, "pay_later").next()) {}

  // A user of class c entered the queue: its patience runs out at a k_abandon event.
  void entered(std::uint32_t user, std::uint32_t c) {
    if (const auto& patience = classes_[c].patience_s) {
      const double d = std::max(0.0, patience->sample(patience_rng_));
      sim_.schedule_far(sim_.now() + sim::sim_time::from_seconds(d), p_control, k_abandon, user);
    }
  }
  // Whether a user of class c who gave up pays later (with the class's probability).
  bool pays_later(std::uint32_t user, std::uint32_t c) const {
    return sim::unit_from_hash(sim::mix64(user ^ pay_later_salt_)) <
           classes_[c].pay_later_probability;
  }

 private:
  const std::vector<user_class>& classes_;
  sim::simulator& sim_;
  sim::rng patience_rng_;
  std::uint64_t pay_later_salt_;
};

}  // namespace waitroom::models
