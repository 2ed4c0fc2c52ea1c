#pragma once
// The room's entrance: who comes and when. It schedules the arrivals (k_arrival, one pending
// at a time) and the backlog already there at opening (k_backlog), draws each visitor's
// class from the class mix when the arrival process leaves it open, and routes a visitor to
// its list by class and a drawn SKU. Its streams (arrivals, class, sku) are its own, so the
// same seed brings the same visitors whatever the policy (common random numbers).
#include <cstdint>
#include <optional>
#include <vector>

#include "models/events.hpp"
#include "models/scenario/scenario.hpp"
#include "sim/arrivals.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class entrance {
 public:
  entrance(const scenario& s, sim::simulator& sim, std::uint64_t seed, std::uint64_t replication);

  // Schedules the backlog (at time 0, when there is one), then the first arrival.
  void start();
  // k_arrival (arg: the class or draw_class): enter(class) for the visitor, then the next
  // arrival is scheduled (or the entrance closes when the process has no more).
  template <class F>
  void on_arrival(std::uint32_t arg, F&& enter) {
    enter(arg == draw_class ? mix_.draw(class_rng_) : arg);
    next();
  }
  // k_backlog: enter(class) for each user already there at opening.
  template <class F>
  void on_backlog(F&& enter) {
    for (std::uint64_t i = 0; i < backlog_users_; ++i) enter(mix_.draw(class_rng_));
    backlog_pending_ = false;
  }
  // The list a visitor of class c joins (its SKU drawn when the scenario has several).
  std::uint32_t list_for(std::uint32_t c) {
    return route_[c][sku_mix_ ? sku_mix_->draw(sku_rng_) : 0];
  }
  // Nobody else will come: the arrival process has ended and the backlog is in.
  bool closed() const { return !open_ && !backlog_pending_; }

 private:
  void next() {
    sim::arrival a{};
    if (arrivals_.next(arrival_rng_, a))
      sim_.schedule(a.time, p_arrival, k_arrival, static_cast<std::uint32_t>(a.user_class));
    else
      open_ = false;
  }

  sim::simulator& sim_;
  const std::vector<std::vector<std::uint32_t>>& route_;
  std::uint64_t backlog_users_;
  sim::rng arrival_rng_, class_rng_, sku_rng_;
  sim::arrival_process arrivals_;
  sim::class_mix mix_;
  std::optional<sim::class_mix> sku_mix_;  // only with more than one SKU
  bool open_ = true;
  bool backlog_pending_ = false;
};

}  // namespace waitroom::models
